// Builds the published site's search index (publishing/search_index.py runs it): reads
// {"documents": [...]} as JSON on standard input, writes the MiniSearch index as JSON on
// standard output. The options are static/js/search-terms.js's, which the browser
// loads the index with.

import { MiniSearch, OPTIONS } from "../static/js/search-terms.js";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const { documents } = JSON.parse(Buffer.concat(chunks).toString("utf8"));
const index = new MiniSearch(OPTIONS);
index.addAll(documents);
process.stdout.write(JSON.stringify(index));
