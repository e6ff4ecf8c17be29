// Parses an AsyncAPI document with the official parser and fails on any
// error-level diagnostic. Usage: node validate.mjs asyncapi.json
import { readFile } from "node:fs/promises";
import { Parser } from "@asyncapi/parser";

const path = process.argv[2];
if (!path) {
  console.error("usage: node validate.mjs <asyncapi.json>");
  process.exit(2);
}
const parser = new Parser();
const { document, diagnostics } = await parser.parse(await readFile(path, "utf8"));
// Severity 0 is an error in the parser's (Spectral) diagnostics.
const errors = diagnostics.filter((d) => d.severity === 0);
for (const d of diagnostics) {
  const where = d.path && d.path.length ? d.path.join(".") : "(root)";
  console.log(`${d.severity === 0 ? "error" : "note"}: ${where}: ${d.message}`);
}
if (!document || errors.length > 0) {
  console.error(`${path}: ${errors.length} error(s)`);
  process.exit(1);
}
console.log(`${path}: valid AsyncAPI ${document.version()} with ${document.channels().length} channels`);
