/**
 * The user's search syntax (docs/api-guide.md › Search) translated into an FTS5 MATCH expression that FTS5 can
 * always parse: every term and phrase becomes a quoted FTS5 string, so no character of the query is ever read as
 * FTS5 syntax (column filters, NEAR, parentheses, `^`), and the whole is confined to the title and body columns.
 *
 *   word        a term (all terms must match)
 *   "a phrase"  the words in this order
 *   pre*        any word starting with `pre` (a term or the last word of a phrase)
 *   a OR b      either (OR binds tighter than the implicit AND: `a OR b c` is (a or b) and c)
 *   -word       records without the term (or -"a phrase"); a query of exclusions only is refused
 */
import { ApiError } from "../../errors";

export const MAX_QUERY_LENGTH = 500;
const MAX_TERMS = 32;
/**
 * A prefix expands over every word of the database's index that starts with it (other tenants' words too), so a
 * short one costs in proportion to everyone's data: prefixes need this many letters or digits (the index keeps a
 * list per 3-character prefix, read in one step), and a query holds at most MAX_PREFIX_TERMS of them.
 */
export const MIN_PREFIX_LENGTH = 3;
export const MAX_PREFIX_TERMS = 4;

interface Term {
  text: string;
  prefix: boolean;
  negate: boolean;
}

function unprocessable(message: string): ApiError {
  return new ApiError("UnprocessableEntityError", message);
}

function tokenize(q: string): (Term | "OR")[] {
  const out: (Term | "OR")[] = [];
  let i = 0;
  while (i < q.length) {
    const ch = q[i]!;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    let negate = false;
    if (ch === "-" && i + 1 < q.length && !/\s/.test(q[i + 1]!)) {
      negate = true;
      i++;
    }
    let text: string;
    let prefix = false;
    if (q[i] === '"') {
      const end = q.indexOf('"', i + 1);
      if (end < 0) throw unprocessable("The search query has a quote that is never closed");
      text = q.slice(i + 1, end);
      i = end + 1;
    } else {
      let j = i;
      while (j < q.length && !/\s/.test(q[j]!) && q[j] !== '"') j++;
      text = q.slice(i, j);
      i = j;
      if (!negate && text === "OR") {
        out.push("OR");
        continue;
      }
    }
    if (q[i] === "*") {
      prefix = true;
      i++;
    } else if (text.endsWith("*")) {
      prefix = true;
      text = text.replace(/\*+$/, "");
    }
    // Words are what the tokenizer keeps: letters and digits. A term with none (punctuation only) matches nothing
    // and is dropped, as a search box would ignore it.
    if (!/[\p{L}\p{N}]/u.test(text)) continue;
    out.push({ text, prefix, negate });
  }
  return out;
}

/** The last word of a term (a phrase's prefix applies to its last word), as the index splits words. */
function lastWord(text: string): string {
  const words = text.split(/[^\p{L}\p{N}]+/u).filter(Boolean);
  return words[words.length - 1] ?? "";
}

function checkPrefixes(terms: Term[]) {
  const prefixes = terms.filter((t) => t.prefix);
  if (prefixes.length > MAX_PREFIX_TERMS)
    throw unprocessable(`A search query has at most ${MAX_PREFIX_TERMS} prefix terms (term*)`);
  const short = prefixes.find((t) => [...lastWord(t.text)].length < MIN_PREFIX_LENGTH);
  if (short)
    throw unprocessable(
      `A prefix (term*) needs at least ${MIN_PREFIX_LENGTH} letters or digits: "${short.text}*" is too short`,
    );
}

function quoted(t: Term): string {
  return `"${t.text.replace(/\*/g, " ").replace(/"/g, '""')}"${t.prefix ? "*" : ""}`;
}

/** The FTS5 MATCH expression for a user query; 422 when it has nothing to find or cannot be read. */
export function ftsExpression(q: string): string {
  if (q.length > MAX_QUERY_LENGTH) throw unprocessable(`A search query is at most ${MAX_QUERY_LENGTH} characters`);
  const tokens = tokenize(q);
  const terms = tokens.filter((t): t is Term => t !== "OR");
  if (terms.length > MAX_TERMS) throw unprocessable(`A search query has at most ${MAX_TERMS} terms`);
  checkPrefixes(terms);
  const groups: Term[][] = [];
  const negated: Term[] = [];
  let joinNext = false;
  for (const tok of tokens) {
    if (tok === "OR") {
      if (groups.length === 0 || joinNext) throw unprocessable("OR stands between two terms");
      joinNext = true;
      continue;
    }
    if (tok.negate) {
      if (joinNext) throw unprocessable("OR stands between two terms, not before an exclusion");
      negated.push(tok);
      continue;
    }
    if (joinNext) groups[groups.length - 1]!.push(tok);
    else groups.push([tok]);
    joinNext = false;
  }
  if (joinNext) throw unprocessable("OR stands between two terms");
  if (groups.length === 0)
    throw unprocessable("The search query has no word to look for (exclusions alone find nothing)");
  const positive = groups
    .map((g) => (g.length === 1 ? quoted(g[0]!) : `(${g.map(quoted).join(" OR ")})`))
    .join(" AND ");
  // Confined to the text columns: the index's scope column (access words) is never reachable from a query.
  if (negated.length === 0) return `${TEXT_COLUMNS} : (${positive})`;
  return `${TEXT_COLUMNS} : ((${positive}) NOT (${negated.map(quoted).join(" OR ")}))`;
}

const TEXT_COLUMNS = "{title body}";

/** An FTS5 string for one scope word (migrations/shard/0000 and 0005): a prefix letter and an id. */
export function scopeWord(prefix: "k" | "w" | "p" | "d", id: string): string {
  return `"${prefix}${id.replace(/"/g, '""')}"`;
}

/** Snippets come back with these around each matched word; `snippetHtml` turns them into <mark>. */
export const MARK_OPEN = "\u0001";
export const MARK_CLOSE = "\u0002";

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);
}

/** A snippet as HTML: every character escaped, matches in <mark>…</mark>, always balanced. */
export function snippetHtml(raw: string): string {
  let out = "";
  let open = false;
  for (const part of raw.split(/([\u0001\u0002])/)) {
    if (part === MARK_OPEN) {
      if (!open) out += "<mark>";
      open = true;
    } else if (part === MARK_CLOSE) {
      if (open) out += "</mark>";
      open = false;
    } else out += escapeHtml(part);
  }
  return open ? `${out}</mark>` : out;
}

/** An FTS5 error is the query's fault (422), whatever the translation let through; anything else is ours. */
export function isFtsQueryError(err: unknown): boolean {
  const message =
    String((err as { message?: unknown })?.message ?? "") +
    String((err as { cause?: { message?: unknown } })?.cause?.message ?? "");
  return /fts5|unterminated string/i.test(message);
}
