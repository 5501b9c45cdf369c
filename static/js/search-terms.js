// How the published site's search (static-search.js) reads text: the same options when
// the index is built at publish time (scripts/search-index.js, run by node) and when it
// is loaded and searched in the browser, as MiniSearch.loadJSON() requires.
//
// Text is folded as catalogue/search.py's fold() does (accents dropped, case folded,
// compatibility forms made plain), then cut into terms at white space and wherever
// letters and digits meet punctuation: "(bayesian-quadrature)" gives ( bayesian -
// quadrature ), so a query of punctuation finds it too, as the live search would. Chinese
// and Japanese have no spaces between words, so a run of their characters is indexed as
// each character and each pair of neighbours (character bigrams, as Lucene's CJK
// analyser does): "保形预测" gives 保 形 预 测 保形 形预 预测. A query's run is read as its
// bigrams (one character alone as itself), so "形预测" finds "保形预测" and a word of
// the query never needs a dictionary.

import MiniSearch from "../vendor/minisearch/index.js";

// A run of letters (with their marks) and digits, or a run of anything else but space.
const WORD = /[\p{L}\p{M}\p{N}]+|[^\p{L}\p{M}\p{N}\s]+/gu;
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]+/gu;

// toLowerCase() is not Python's str.casefold(): the two differ where the folded form is
// another letter (ß and ẞ are "ss", a final ς is σ), which catalogue/search.py's fold()
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

// How the index is built and searched. A query is not searched with these options but
// with searchQuery()'s combination, which asks for whole terms of the index.
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

// The words of a query as the live search reads them (catalogue/search.py words(), and
// SEARCH_MAX_WORDS of catalogue/models.py): the folded text split on white space, the
// first ten.
export const MAX_WORDS = 10;

export function queryWords(text) {
  return fold(text).split(/\s+/u).filter(Boolean).slice(0, MAX_WORDS);
}

// The MiniSearch query that finds what the live search finds, as near as an index of
// terms can: every word of the query (queryWords) must be found, a word being found
// when each of its terms (queryTerms) is part of a term of the index. The live search
// finds a word anywhere in the text (SQL LIKE '%ptim%' finds "optimization"); MiniSearch
// matches a term whole or, with `prefix`, by its beginning only, so each term of the
// query is looked up in the index's vocabulary and every indexed term containing it
// is asked for, whole. Where it differs from the live search (README: "Search on the
// published site"): a word's terms must each be in the text, not side by side, so
// "graph-based" finds a text with "graph", "-" and "based" anywhere, and a Chinese word
// one with each of its bigrams. Returns null for a text of white space alone.
export function searchQuery(index, text) {
  const terms = [...new Set(queryWords(text).flatMap((word) => queryTerms(word)))];
  if (terms.length === 0) return null;
  // MiniSearch 7.2.0 has no public list of its terms: _index is the SearchableMap it
  // keeps them in (tests/publishing/test_static_search.py checks the result against the live
  // search). Sorted, so that the terms beginning with another follow it.
  const vocabulary = Array.from(index._index.keys()).sort();
  return {
    combineWith: "AND",
    fuzzy: false,
    queries: terms.map((term) => ({
      combineWith: "OR",
      prefix: true,
      queries: covering(vocabulary, term),
    })),
  };
}

// The terms of the sorted `vocabulary` that contain `term`, less those that begin with
// another of them: a prefix search for "1" finds "12" and "123" too, which contain the
// term as well. At 5,000 papers a digit is in thousands of terms, which MiniSearch
// searched one by one in over a second; their covering prefixes take a third of that.
function covering(vocabulary, term) {
  const found = [];
  for (const indexed of vocabulary) {
    if (indexed.includes(term) && !(found.length && indexed.startsWith(found.at(-1)))) {
      found.push(indexed);
    }
  }
  return found;
}

export { MiniSearch };
