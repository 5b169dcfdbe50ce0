/** @jsxImportSource hono/jsx */
/** The reader site's search results page (docs/api-guide.md › Search). */
import { raw } from "hono/html";
import type { SiteSearchResult } from "../services/search/site";
import type { Links } from "./pages";

export function SearchArticle({ q, result, links }: { q: string; result: SiteSearchResult | null; links: Links }) {
  return (
    <article>
      <h1>Search</h1>
      {result === null ? (
        <p>
          Type one or more words in the search box. Use "quotes" for a phrase, word* for a prefix, OR between
          alternatives and -word to leave a word out.
        </p>
      ) : !result.ok ? (
        <p class="notice" role="alert">
          {result.message}
        </p>
      ) : result.hits.length === 0 ? (
        <p role="status">No page matches “{q}”.</p>
      ) : (
        <>
          <p role="status">
            {result.hits.length === 1 ? "1 page" : `${result.hits.length} pages`} match “{q}”.
          </p>
          <ol class="search-results">
            {result.hits.map((h) => (
              <li>
                <a href={links.doc(h._id)}>{h.title}</a>
                {/* snippetHtml escaped every character of the text; only its <mark> tags are markup. */}
                {h.snippet ? <p>{raw(h.snippet)}</p> : null}
              </li>
            ))}
          </ol>
        </>
      )}
    </article>
  );
}
