// How the published site's search (static-search.js) reads text: the same options when
// the index is built at publish time (scripts/search-index.js, run by node) and when it
// is loaded and searched in the browser, as MiniSearch.loadJSON() requires.
//
// Text is folded as papers/search.py's fold() does (accents dropped, case folded,
// compatibility forms made plain), then cut into words of letters and digits. Chinese
// and Japanese have no spaces between words, so a run of their characters is indexed as
// each character and each pair of neighbours (character bigrams, as Lucene's CJK
// analyser does): "保形预测" gives 保 形 预 测 保形 形预 预测. A query's run is read as its
// bigrams (one character alone as itself), so "形预测" finds "保形预测" and a word of
// the query never needs a dictionary.

import MiniSearch from "../vendor/minisearch/index.js";

const WORD = /[\p{L}\p{N}]+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;

// toLowerCase() is not Python's str.casefold(): the two differ where the folded form is
// another letter (ß and ẞ are "ss", a final ς is σ), which papers/search.py's fold()
// wrote into the index, so a query with them found nothing.
export function fold(text) {
  return (text || "")
    .normalize("NFKD")
    .replace(/\p{Mn}/gu, "")
    .toLowerCase()
    .replace(/ß/gu, "ss")
    .replace(/ς/gu, "σ")
    .normalize("NFKC");
}

function pieces(word, query) {
  // The word split into runs of CJK characters and runs of anything else.
  const terms = [];
  let position = 0;
  for (const match of word.matchAll(CJK)) {
    if (match.index > position) terms.push(word.slice(position, match.index));
    const run = Array.from(match[0]);
    if (!query || run.length === 1) terms.push(...run);
    for (let i = 0; i + 1 < run.length; i += 1) terms.push(run[i] + run[i + 1]);
    position = match.index + match[0].length;
  }
  if (position < word.length) terms.push(word.slice(position));
  return terms;
}

export function indexTerms(text) {
  return Array.from(fold(text).matchAll(WORD), (match) => pieces(match[0], false)).flat();
}

export function queryTerms(text) {
  return Array.from(fold(text).matchAll(WORD), (match) => pieces(match[0], true)).flat();
}

// Every word of the query must match (as the live search's "every word"), a word
// matching the start of a longer one ("optim" finds "optimization").
export const OPTIONS = {
  idField: "id",
  fields: ["text", "people"],
  storeFields: ["order", "at", "awards"],
  tokenize: indexTerms,
  processTerm: (term) => term,
  searchOptions: {
    tokenize: queryTerms,
    processTerm: (term) => term,
    combineWith: "AND",
    prefix: true,
  },
};

export { MiniSearch };
