// CORS_ALLOWED_ORIGINS as npm start and deploy:check read it (the Worker's own reading is src/http/cors.ts, which
// allows exactly the entries accepted here and ignores the rest): comma-separated exact origins, a browser's
// `Origin` value (http or https, a lower-case host, an optional port, nothing after it). `*` is refused: the API
// is called with bearer tokens, and a wildcard would let any site drive it with a token it obtained.

/** Splits the list; `problems` are the entries that are not an exact origin (`*` among them). */
export function parseCorsOrigins(value) {
  const entries = String(value ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const origins = [];
  const problems = [];
  for (const entry of entries) {
    let origin = null;
    try {
      const url = new URL(entry);
      if ((url.protocol === "http:" || url.protocol === "https:") && url.origin === entry.replace(/\/$/, ""))
        origin = url.origin;
    } catch {}
    if (origin) origins.push(origin);
    else problems.push(entry);
  }
  return { origins, problems };
}

/** Why a list is refused, in one sentence, or null when every entry is an exact origin. */
export function corsOriginsProblem(value) {
  const { problems } = parseCorsOrigins(value);
  if (problems.length === 0) return null;
  return `CORS_ALLOWED_ORIGINS: ${problems.map((p) => JSON.stringify(p)).join(", ")} ${problems.length === 1 ? "is not an exact origin" : "are not exact origins"}; list each browser app's origin as scheme://host[:port] (lower case, no path), comma-separated${problems.includes("*") ? ", never `*` (bearer-token API: any site could use a token it got hold of)" : ""}`;
}
