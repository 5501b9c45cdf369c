"""Write the made-up proceedings of CIL 2031 (cil-2031-proceedings.bib and .json beside
this file): the seven awarded papers of ../cil-2031.bib among synthetic entries, PMLR-style
BibTeX and CSL-JSON, every name and title invented. Deterministic (a seeded random), so
the files are remade byte for byte: ``python tests/data/harvest/make_proceedings.py [entries]
[folder]`` (default 2,000 entries, this folder); the harvest's timing used 5,000."""

import json
import random
import re
import sys
import unicodedata
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
GIVEN = (
    "Aiko Alba Anouk Ayla Bram Cata Dara Edvin Elin Emre Farah Ilse Ines Jara Joaquim Kaito "
    "Kirra Lavinia Leif Mika Nalani Odile Pavel Quill Ren Saoirse Tariq Una Vesna Wren Yara "
    "Zoltan"
).split()
# Family names, some with accents written in LaTeX as PMLR does.
FAMILY = (
    r"Abernethy Bj{\"o}rkman Castellano Dragomir Esterh{\'a}zy Falkenrath Gwynedd Halloran "
    r"Ibarra Jovanovi{\'c} Kettleborough Lindqvist-Oyelaran Marchetti Norrgård Oduya "
    r"Pellegrino Quarshie Rautavaara Szab{\'o} Thornquist Urquhart Valdemarsson Whitcombe "
    r"Xanthou Yllescas Zubiri"
).split()
WORDS = (
    "Adaptive Bayesian Causal Contrastive Diffusion Efficient Federated Gaussian Graph "
    "Hierarchical Implicit Kernel Latent Meta Neural Optimal Probabilistic Robust Scalable "
    "Sparse Spectral Stochastic Variational"
).split()
NOUNS = (
    "Attention Bandits Embeddings Estimators Flows Forests Games Kernels Manifolds Markets "
    "Operators Policies Priors Processes Representations Samplers Transformers Trees"
).split()
TAILS = (
    "under Distribution Shift",
    "for Tabular Data",
    "with Partial Feedback",
    "at Scale",
    "without Labels",
    "in Continuous Time",
    "for Imaginary Worlds",
    "via Optimal Transport",
    "with Provable Guarantees",
    "in the Wild",
)
# Two entries close to each other, by the same first author: a title between them is
# ambiguous. And a near-title of an awarded paper by other people.
CRAFTED = [
    ("arkhipova31a", "Sparse Mirrors for Dense Worlds", r"Arkhipova, Vesna and Oduya, Kirra"),
    ("arkhipova31b", "Sparse Mirrors for Dense Words", r"Arkhipova, Vesna and Ibarra, Ren"),
    ("halloran31c", "Dreaming in Imaginary Gradient Fields", r"Halloran, Leif and Zubiri, Una"),
]


def synthetic(rng, count):
    """``count`` (key, title, author field) of invented papers, titles unique."""
    seen, made = set(), []
    while len(made) < count:
        title = f"{rng.choice(WORDS)} {rng.choice(WORDS)} {rng.choice(NOUNS)} {rng.choice(TAILS)}"
        if title in seen:
            continue
        seen.add(title)
        if rng.random() < 0.2:
            title = re.sub(r"\b(Bayesian|Gaussian|Markov)\b", r"{\1}", title)
        people = [(rng.choice(FAMILY), rng.choice(GIVEN)) for _ in range(rng.randint(2, 7))]
        first = re.sub(r"[^a-z]", "", people[0][0].lower())
        made.append((f"{first}31x{len(made)}", title, " and ".join(f"{f}, {g}" for f, g in people)))
    return made


def awarded():
    """The seven awarded papers' BibTeX blocks, as in cil-2031.bib."""
    text = (HERE.parent / "cil-2031.bib").read_text(encoding="utf-8")
    return ["@" + block.strip() + "\n" for block in text.split("\n@")[1:]]


def bibtex_entry(key, title, authors, number):
    """One PMLR-style @InProceedings of a synthetic paper."""
    first = 85 + 12 * number
    return (
        f"@InProceedings{{{key},\n"
        f"  title = \t {{{title}}},\n"
        f"  author =       {{{authors}}},\n"
        "  booktitle = \t {Proceedings of Imaginary Learning},\n"
        f"  pages = \t {{{first}--{first + 11}}},\n"
        "  year = \t {2031},\n"
        "  volume = \t {9},\n"
        "  series = \t {Proceedings of Imaginary Learning},\n"
        "  month = \t {14--19 Jul},\n"
        "  publisher =    {Imaginary Press},\n"
        f"  pdf = \t {{https://proceedings.cil.example.org/2031/{key}.pdf}},\n"
        f"  url = \t {{https://proceedings.cil.example.org/2031/{key}.html}},\n"
        "  abstract = \t {An invented paper of the made-up proceedings, for tests only.}\n"
        "}\n"
    )


def plain(latex):
    """The synthetic LaTeX written here as text (braces, and the accents of FAMILY)."""
    for command, accent in (('\\"', "\u0308"), ("\\'", "\u0301")):
        latex = re.sub(re.escape(command) + r"\{?(\w)\}?", lambda m, a=accent: m[1] + a, latex)
    return unicodedata.normalize("NFC", latex.replace("{", "").replace("}", ""))


def csl_item(key, title, authors, number):
    """One CSL-JSON item of a synthetic paper."""
    people = []
    for name in authors.split(" and "):
        family, _, given = name.partition(", ")
        people.append(
            {"family": plain(family), "given": plain(given)}
            if given
            else {"literal": plain(family)}
        )
    first = 85 + 12 * number
    return {
        "id": key,
        "type": "paper-conference",
        "title": plain(title),
        "author": people,
        "container-title": "Proceedings of Imaginary Learning",
        "page": f"{first}-{first + 11}",
        "issued": {"date-parts": [[2031, 7]]},
        "URL": f"https://proceedings.cil.example.org/2031/{key}.html",
    }


def awarded_csl_items():
    """The seven awarded papers as CSL-JSON, from cil-2031.yaml (a name with a Chinese
    other name is written family name first)."""
    compact = yaml.safe_load((HERE.parent / "cil-2031.yaml").read_text(encoding="utf-8"))
    items = []
    for paper, block in zip(compact["papers"], awarded(), strict=True):
        people = []
        for author in paper["authors"]:
            author = author if isinstance(author, dict) else {"name": author}
            words = author["name"].split()
            if "other_names" in author:
                people.append({"family": words[0], "given": " ".join(words[1:])})
            else:
                people.append({"family": words[-1], "given": " ".join(words[:-1])})
        items.append(
            {
                "id": re.match(r"@\w+\{([^,]+),", block)[1],
                "type": "paper-conference",
                "title": paper["title"].replace("\\(k\\)", "<i>k</i>"),
                "author": people,
                "container-title": "Proceedings of Imaginary Learning",
                "page": paper["pages"],
                "issued": {"date-parts": [[2031, 7]]},
                "URL": paper["links"]["proceedings"],
            }
        )
    return items


def main(count=2000, folder=HERE):
    rng = random.Random(2031)
    papers = synthetic(rng, count - 7 - len(CRAFTED)) + CRAFTED
    rng.shuffle(papers)
    blocks = awarded()
    bib = [
        "% The made-up proceedings of CIL 2031 (tests/data/harvest/make_proceedings.py): every\n"
        "% name and title here is invented.\n"
    ]
    step = len(papers) // len(blocks)
    for number, paper in enumerate(papers):
        if number % step == 0 and number // step < len(blocks):
            bib.append(blocks[number // step])
        bib.append(bibtex_entry(*paper, number))
    Path(folder, "cil-2031-proceedings.bib").write_text("\n".join(bib), encoding="utf-8")
    awarded_csl = awarded_csl_items()
    items = [csl_item(*paper, number) for number, paper in enumerate(papers)]
    for number, item in enumerate(awarded_csl):
        items.insert(number * step + number, item)
    Path(folder, "cil-2031-proceedings.json").write_text(
        json.dumps(items, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )


if __name__ == "__main__":
    main(*(int(sys.argv[1]),) if len(sys.argv) > 1 else (), *(sys.argv[2:3]))
