// The published site's search page (templates/papers/static_search.html, written by
// publishing/search_index.py): reads ?q= and ?page= from the address, searches the
// MiniSearch index beside the page (index.json) and shows the results as the live
// search page does: 20 a page in the live order, each paper's item as the server
// rendered it at publish time (results.json, in the page's language), its abstract's snippet around the first match with
// every match in <mark>. No inline script or style, no eval: it runs under the site's
// Content-Security-Policy (script-src 'self').

import { MiniSearch, OPTIONS, fold, queryWords, searchQuery } from "./search-terms.js";

const SNIPPET_CHARS = 220; // as catalogue/search.py's SNIPPET_CHARS

const section = document.getElementById("search-results");
const fallback = document.getElementById("search-fallback");
const params = new URLSearchParams(location.search);
const query = (params.get("q") || "").slice(0, 200);
document.getElementById("id_q").value = query;
// The filters, as the live form's choices allow them: a value the form does not offer
// (an unknown conference) is left out, as if not asked.
const filters = {};
for (const name of ["conference", "year", "award"]) {
  const select = document.getElementById(`id_${name}`);
  const value = params.get(name) || "";
  const offered = Array.from(select.options).some((option) => option.value === value);
  filters[name] = offered ? value : "";
  select.value = filters[name];
}

// Whether a result passes the filters: "at" holds each [conference slug, year] whose
// page lists the paper, "awards" the award series it is in (publishing/search_index.py).
function passes(result) {
  if (filters.award && !result.awards.includes(filters.award)) return false;
  if (!filters.conference && !filters.year) return true;
  return result.at.some(
    ([slug, year]) =>
      (!filters.conference || slug === filters.conference) &&
      (!filters.year || String(year) === filters.year),
  );
}

function format(template, values) {
  return template.replace(/\{(\w+)\}/g, (whole, name) => String(values[name] ?? whole));
}

// The window of `text` around the first match of a word of the query, as catalogue/search.py's
// snippet(): [parts, cutBefore, cutAfter], parts being [text, isMatch] pairs.
function snippet(text, words) {
  const folded = [];
  const origin = [];
  Array.from(text).forEach((char, index) => {
    for (const piece of fold(char)) {
      folded.push(piece);
      origin.push(index);
    }
  });
  const chars = Array.from(text);
  const haystack = folded.join("");
  const foldedIndex = (offset) => Array.from(haystack.slice(0, offset)).length;
  const spans = [];
  for (const word of new Set(words)) {
    let start = haystack.indexOf(word);
    while (start !== -1) {
      const first = foldedIndex(start);
      const last = foldedIndex(start + word.length) - 1;
      spans.push([origin[first], origin[last] + 1]);
      start = haystack.indexOf(word, start + word.length);
    }
  }
  if (spans.length === 0) return null;
  spans.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  // Overlapping or touching matches (a Chinese word's bigrams) are one <mark>.
  for (let i = spans.length - 1; i > 0; i -= 1) {
    if (spans[i][0] <= spans[i - 1][1]) {
      spans[i - 1][1] = Math.max(spans[i - 1][1], spans[i][1]);
      spans.splice(i, 1);
    }
  }
  const first = spans[0][0];
  let begin = Math.max(0, Math.min(first - Math.floor(SNIPPET_CHARS / 3), chars.length - SNIPPET_CHARS));
  if (begin) {
    const space = chars.indexOf(" ", begin);
    begin = space >= 0 && space < first ? space + 1 : begin;
  }
  let finish = Math.min(chars.length, begin + SNIPPET_CHARS);
  if (finish < chars.length) {
    const space = chars.slice(begin, finish).lastIndexOf(" ");
    finish = space >= 0 && begin + space > Math.max(first, begin) ? begin + space : finish;
  }
  const parts = [];
  let position = begin;
  for (let [start, end] of spans) {
    start = Math.max(start, position);
    end = Math.min(end, finish);
    if (start >= end) continue;
    if (start > position) parts.push([chars.slice(position, start).join(""), false]);
    parts.push([chars.slice(start, end).join(""), true]);
    position = end;
  }
  if (position < finish) parts.push([chars.slice(position, finish).join(""), false]);
  return [parts, begin > 0, finish < chars.length];
}

function snippetElement(result, words) {
  const window = result.snippet && snippet(result.snippet, words);
  if (!window) return null;
  const [parts, cutBefore, cutAfter] = window;
  const paragraph = document.createElement("p");
  paragraph.className = "snippet";
  if (result.snippetLang) {
    paragraph.classList.add("untranslated");
    paragraph.lang = result.snippetLang;
  }
  if (cutBefore) paragraph.append("… ");
  for (const [text, isMatch] of parts) {
    if (isMatch) {
      const mark = document.createElement("mark");
      mark.textContent = text;
      paragraph.append(mark);
    } else {
      paragraph.append(text);
    }
  }
  if (cutAfter) paragraph.append(" …");
  return paragraph;
}

// One result: the item rendered at publish time (our own escaped HTML, as on every
// page), its lead replaced by the snippet when the abstract holds a word of the query.
function item(result, words) {
  const template = document.createElement("template");
  template.innerHTML = result.html;
  const article = template.content.firstElementChild;
  const paragraph = snippetElement(result, words);
  if (paragraph) {
    article.querySelector(".paper-lead")?.remove();
    const meta = article.querySelector(".paper-meta");
    if (meta) meta.after(paragraph);
  }
  return article;
}

function pageLink(page, rel, label) {
  const item = document.createElement("li");
  const link = document.createElement("a");
  const asked = Object.entries(filters).filter(([, value]) => value);
  const address = new URLSearchParams([["q", query], ...asked, ["page", String(page)]]);
  link.href = `?${address}`;
  link.rel = rel;
  link.textContent = label;
  item.append(link);
  return item;
}

function pagination(number, total) {
  const nav = document.createElement("nav");
  nav.className = "pagination";
  nav.setAttribute("aria-label", section.dataset.pagesLabel);
  const list = document.createElement("ul");
  if (number > 1) list.append(pageLink(number - 1, "prev", section.dataset.previous));
  const current = document.createElement("li");
  current.setAttribute("aria-current", "page");
  current.textContent = format(section.dataset.pageOf, { number, total });
  list.append(current);
  if (number < total) list.append(pageLink(number + 1, "next", section.dataset.next));
  nav.append(list);
  return nav;
}

async function load(address) {
  const response = await fetch(address);
  if (!response.ok) throw new Error(`${address}: ${response.status}`);
  return response.text();
}

async function search() {
  // As the live form: a query of white space only asks for nothing (Django strips it),
  // any other one is a search, even of punctuation alone.
  const asked = queryWords(query).length > 0;
  if (!asked && !filters.conference && !filters.year && !filters.award) {
    fallback.hidden = true; // nothing asked yet: the index is loaded only for a search
    return;
  }
  // The index (the same in both languages) and this language's results, together.
  const [indexText, resultsText] = await Promise.all([
    load(section.dataset.index),
    load(section.dataset.results),
  ]);
  const index = MiniSearch.loadJSON(indexText, OPTIONS);
  const shown = JSON.parse(resultsText);
  fallback.hidden = true;
  // As the live page's title, which cuts the query at 60 characters (truncatechars).
  const title = query.length > 60 ? `${query.slice(0, 59)}…` : query;
  document.title = format(section.dataset.titleQuery, { query: title });
  // The snippet marks the query's words as the live page does (folded, split on white
  // space), not the index's terms: a Chinese word is marked whole, not as bigrams.
  const words = fold(query).split(/\s+/u).filter(Boolean);
  const asking = asked ? searchQuery(index, query) : MiniSearch.wildcard;
  const results = asking ? index.search(asking, { filter: passes }) : [];
  results.sort((a, b) => a.order - b.order);
  const perPage = Number(section.dataset.perPage);
  const total = Math.max(1, Math.ceil(results.length / perPage));
  const number = Math.min(Math.max(1, Number.parseInt(params.get("page"), 10) || 1), total);
  const count = results.length;
  const template = count === 1 ? section.dataset.foundOne : section.dataset.foundMany;
  document.getElementById("results-heading").textContent = format(template, { count });
  const items = document.getElementById("search-items");
  const start = (number - 1) * perPage;
  const page = results.slice(start, start + perPage);
  items.replaceChildren(...page.map((result) => item(shown[result.id], words)));
  // As the live page: the notice at the top explains the marks of untranslated text,
  // once, when a result shown has one (only a page not in English has the notice).
  const notice = document.getElementById("untranslated-notice");
  if (notice) notice.hidden = !items.querySelector(".untranslated");
  document.getElementById("search-suggestions").hidden = count > 0;
  if (filters.conference || filters.year || filters.award) {
    const everywhere = document.getElementById("search-everywhere");
    everywhere.querySelector("a").href = `?${new URLSearchParams({ q: query })}`;
    everywhere.hidden = false;
  }
  if (total > 1) items.after(pagination(number, total));
  section.hidden = false;
}

search().catch((error) => {
  fallback.hidden = false;
  console.error("The search index could not be loaded:", error);
});
