/** putProjectBranding: PUT /project/{id}/branding (src/routes/portals/branding.ts) — its happy path, errors and request-path checks. */
/**
 * Published portals (docs/api-guide.md › Automations, published portals, collaborative editing, E13, E14): the publishing API, the bearer reads, and the reader site with its
 * caching, safety, findability and password rules — all through the real Worker in workerd.
 */
import { SELF } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { BASE, call, expectError, ok, seedTenant, type Tenant } from "../../support/harness";
import { verifyDomain } from "../../support/portalDomains";
import { shardD1 } from "../../support/shards";

let t: Tenant;
beforeAll(async () => {
  t = await seedTenant();
});

let n = 0;
const uniqueSlug = (p = "p") => `${p}-${Date.now().toString(36)}-${++n}-${Math.random().toString(36).slice(2, 6)}`;

/** A fresh project of the tenant with published documents (folder → doc, plus an unpublished and a deleted one). */
async function seedPortal(
  opts: {
    slug?: string;
    domain?: string;
    password?: string;
    expiresAt?: number;
    allowIndexing?: boolean;
    name?: string;
    docName?: string;
    tenant?: Tenant;
  } = {},
) {
  const tenant = opts.tenant ?? t;
  const tok = tenant.owner.token;
  const project = (
    await ok("POST", "/project", {
      token: tok,
      body: { workspaceId: tenant.workspaceId, name: opts.name ?? "Handbook", description: "Our team handbook" },
    })
  ).data;
  const mk = async (name: string, type: "FOLDER" | "DOCUMENT", parentId?: string) =>
    (
      await ok("POST", "/document", {
        token: tok,
        body: { projectId: project._id, name, type, ...(parentId && { parentId }) },
      })
    ).data._id as string;
  const folder = await mk("Policies", "FOLDER");
  const doc = await mk(opts.docName ?? "Leave policy", "DOCUMENT", folder);
  const hidden = await mk("Draft salaries", "DOCUMENT", folder);
  const gone = await mk("Deleted page", "DOCUMENT", folder);
  for (const id of [folder, doc, gone]) await ok("POST", `/document/${id}/publish`, { token: tok, body: {} });
  await ok("DELETE", `/document/${gone}`, { token: tok });
  const slug = opts.slug ?? uniqueSlug();
  const published = await ok("POST", `/project/${project._id}/publish`, {
    token: tok,
    body: {
      slug,
      ...(opts.domain && { domain: opts.domain }),
      ...(opts.password && { password: opts.password }),
      ...(opts.expiresAt && { expiresAt: opts.expiresAt }),
      ...(opts.allowIndexing !== undefined && { allowIndexing: opts.allowIndexing }),
    },
  });
  // A domain is served once its owner proves it (TXT record on the tests' resolver, then verify-domain).
  const record = opts.domain ? await verifyDomain(tok, project._id, slug) : published.data;
  return { projectId: project._id as string, folder, doc, hidden, gone, slug, project: record };
}

async function page(path: string, init: RequestInit & { host?: string } = {}) {
  const url = init.host ? `http://${init.host}${path}` : `${BASE}${path}`;
  const res = await SELF.fetch(url, { redirect: "manual", ...init });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const putContent = (id: string, blocks: unknown) =>
  ok("PUT", `/document/${id}/content`, { token: t.owner.token, body: { blocks } });

describe("branding URLs", () => {
  it("accepts only http(s) links on write (400 otherwise) and never returns a stored non-http(s) link from /published/*", async () => {
    const p = await seedPortal();
    const put = (body: unknown) => call("PUT", `/project/${p.projectId}/branding`, { token: t.owner.token, body });
    for (const bad of [
      "javascript:alert(document.domain)",
      "JaVa\tScRiPt:alert(1)",
      " javascript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "vbscript:x",
      "mailto:a@b.test",
      "/relative/logo.png",
      "not a url",
    ]) {
      expectError(await put({ company: { logo: bad } }), 400, "ValidationError");
      expectError(await put({ company: { url: bad } }), 400, "ValidationError");
      expectError(await put({ callToAction: { enabled: true, url: bad } }), 400, "ValidationError");
    }
    expectError(await put({ socials: [{ platform: "x", handle: "javascript:alert(1)" }] }), 400, "ValidationError");
    expectError(
      await put({ socials: [{ platform: "mastodon", handle: "data:text/html,hi" }] }),
      400,
      "ValidationError",
    );
    await ok("PUT", `/project/${p.projectId}/branding`, {
      token: t.owner.token,
      body: {
        company: { logo: "https://acme.test/l.png", url: "" },
        callToAction: { enabled: true, url: "http://acme.test/go" },
        socials: [
          { platform: "x", handle: "@acme" },
          { platform: "mastodon", handle: "https://social.test/@acme" },
        ],
      },
    });
    // A link stored before these rules (written here straight into D1) is returned as "".
    const legacy = {
      company: { name: "Old", logo: "javascript:alert(1)", url: "java\tscript:alert(2)" },
      callToAction: { enabled: true, text: "Go", url: "data:text/html,x" },
      socials: [
        { platform: "mastodon", handle: "javascript:alert(3)" },
        { platform: "x", handle: "acme" },
      ],
    };
    await shardD1(p.projectId)
      .prepare("UPDATE projects SET published_branding = ? WHERE id = ?")
      .bind(JSON.stringify(legacy), p.projectId)
      .run();
    const read = await ok("GET", `/published/${p.projectId}/branding`, { token: t.outsider.token });
    expect(read.data).toEqual({
      company: { name: "Old", logo: "", url: "" },
      callToAction: { enabled: true, icon: { name: "", color: "" }, text: "Go", url: "" },
      socials: [
        { platform: "mastodon", handle: "" },
        { platform: "x", handle: "acme" },
      ],
    });
    expect(JSON.stringify(await ok("GET", `/project/${p.projectId}`, { token: t.owner.token }))).not.toMatch(
      /javascript|data:/i,
    );
  });
});

const ALL_BLOCKS = [
  {
    id: "1",
    type: "heading",
    props: { level: 1 },
    content: [{ type: "text", text: "Section one", styles: {} }],
    children: [],
  },
  {
    id: "2",
    type: "heading",
    props: { level: 3 },
    content: [{ type: "text", text: "Deep", styles: {} }],
    children: [],
  },
  {
    id: "3",
    type: "paragraph",
    props: {},
    content: [
      { type: "text", text: "bold", styles: { bold: true } },
      { type: "text", text: "ital", styles: { italic: true } },
      { type: "text", text: "under", styles: { underline: true } },
      { type: "text", text: "struck", styles: { strike: true } },
      { type: "text", text: "mono", styles: { code: true } },
      { type: "link", href: "https://example.com/a?b=1&c=2", content: [{ type: "text", text: "a link", styles: {} }] },
      { type: "link", href: "javascript:alert(1)", content: [{ type: "text", text: "evil link", styles: {} }] },
      { type: "link", href: "java\tscript:alert(2)", content: [{ type: "text", text: "sneaky", styles: {} }] },
      { type: "link", href: "data:text/html,<script>alert(3)</script>", content: "data link" },
      { type: "link", href: "mailto:hr@example.com", content: [{ type: "text", text: "mail", styles: {} }] },
    ],
    children: [],
  },
  {
    id: "4",
    type: "bulletListItem",
    props: {},
    content: [{ type: "text", text: "b1", styles: {} }],
    children: [{ id: "4a", type: "bulletListItem", props: {}, content: "nested", children: [] }],
  },
  { id: "5", type: "bulletListItem", props: {}, content: [{ type: "text", text: "b2", styles: {} }], children: [] },
  { id: "6", type: "numberedListItem", props: {}, content: [{ type: "text", text: "n1", styles: {} }], children: [] },
  {
    id: "7",
    type: "checkListItem",
    props: { checked: true },
    content: [{ type: "text", text: "done item", styles: {} }],
    children: [],
  },
  {
    id: "8",
    type: "checkListItem",
    props: { checked: false },
    content: [{ type: "text", text: "open item", styles: {} }],
    children: [],
  },
  { id: "9", type: "quote", props: {}, content: [{ type: "text", text: "quoted", styles: {} }], children: [] },
  {
    id: "10",
    type: "codeBlock",
    props: { language: "js" },
    content: [{ type: "text", text: "if (a < b) { run(); }", styles: {} }],
    children: [],
  },
  {
    id: "11",
    type: "table",
    props: {},
    content: {
      type: "tableContent",
      rows: [
        {
          cells: [
            [{ type: "text", text: "c11", styles: {} }],
            { type: "tableCell", content: [{ type: "text", text: "c12", styles: {} }] },
          ],
        },
      ],
    },
    children: [],
  },
  { id: "12", type: "image", props: { url: "https://img.example.com/x.png", caption: "A chart" }, children: [] },
  { id: "13", type: "image", props: { url: "javascript:alert(4)", caption: "bad image" }, children: [] },
  {
    id: "14",
    type: "mysteryWidget",
    props: {},
    content: [{ type: "text", text: "mystery text", styles: {} }],
    children: [],
  },
  {
    id: "15",
    type: "paragraph",
    props: {},
    content: [{ type: "text", text: "<script>alert('block')</script><img src=x onerror=alert(5)>", styles: {} }],
    children: [],
  },
];

describe("reader site", () => {
  it("renders the home with branding and navigation, and a document with every block type, safely", async () => {
    const p = await seedPortal({
      name: `<script>alert("project")</script>`,
      docName: `<img src=x onerror=alert("doc")>`,
    });
    await ok("PUT", `/project/${p.projectId}/branding`, {
      token: t.owner.token,
      body: {
        company: { name: `Acme <b onmouseover="x">` },
        callToAction: { enabled: true, text: "Contact <us>", url: "https://acme.test/contact" },
      },
    });
    // Links the API now refuses (400) but that a database from before the rule may hold: the site must not emit them.
    const legacy = {
      company: { name: `Acme <b onmouseover="x">`, logo: "javascript:alert(6)", url: "javascript:alert(7)" },
      callToAction: { enabled: true, text: "Contact <us>", url: "https://acme.test/contact" },
      socials: [
        { platform: "x", handle: "acme" },
        { platform: "evil", handle: "javascript:alert(8)" },
      ],
    };
    await shardD1(p.projectId)
      .prepare("UPDATE projects SET published_branding = ? WHERE id = ?")
      .bind(JSON.stringify(legacy), p.projectId)
      .run();
    await putContent(p.doc, ALL_BLOCKS);
    const home = await page(`/site/${p.slug}`);
    expect(home.status).toBe(200);
    expect(home.headers.get("content-type")).toMatch(/^text\/html/);
    expect(home.text).toMatch(/^<!DOCTYPE html>/);
    expect(home.text).toContain("Acme &lt;b onmouseover=&quot;x&quot;&gt;");
    expect(home.text).toContain('href="https://acme.test/contact"');
    expect(home.text).toContain("Contact &lt;us&gt;");
    expect(home.text).toContain('href="https://x.com/acme"');
    expect(home.text).toContain(`href="/site/${p.slug}/${p.doc}"`);
    expect(home.text).toContain(`href="/site/${p.slug}/${p.folder}"`);
    expect(home.text).not.toContain(p.hidden);
    expect(home.text).not.toContain(p.gone);
    expect(home.text).toContain('<link rel="stylesheet" href="/site/assets/site.css');
    expect(home.text).toMatch(/<title>[^<]*<\/title>/);
    expect(home.text).toContain('<meta name="description"');
    expect(home.text).toContain('<meta property="og:title"');
    const doc = await page(`/site/${p.slug}/${p.doc}`);
    expect(doc.status).toBe(200);
    const h = doc.text;
    for (const frag of [
      "<h1>Section one</h1>",
      "<h3>Deep</h3>",
      "<strong>bold</strong>",
      "<em>ital</em>",
      "<u>under</u>",
      "<s>struck</s>",
      "<code>mono</code>",
      '<a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer nofollow">a link</a>',
      '<a href="mailto:hr@example.com"',
      "<ul><li>b1<ul><li>nested</li></ul></li><li>b2</li></ul>",
      "<ol><li>n1</li></ol>",
      'class="checklist"',
      'aria-label="Done"',
      'aria-label="Not done"',
      "<blockquote><p>quoted</p></blockquote>",
      '<pre><code class="language-js">if (a &lt; b) { run(); }</code></pre>',
      "<table><tbody><tr><td>c11</td><td>c12</td></tr></tbody></table>",
      '<img src="https://img.example.com/x.png" alt="A chart"',
      "<figcaption>A chart</figcaption>",
      "<p>bad image</p>",
      "<p>mystery text</p>",
      "&lt;script&gt;alert(&#39;block&#39;)&lt;/script&gt;&lt;img src=x onerror=alert(5)&gt;",
      "evil link",
      "sneaky",
      "data link",
    ]) {
      expect(h, frag).toContain(frag);
    }
    // Nothing user-supplied became markup, and no unsafe URL was emitted.
    for (const text of [h, home.text]) {
      expect(text).not.toMatch(/(href|src|content)="\s*(javascript|data):/i);
      expect(text).not.toMatch(/<script|<img[^>]*onerror|<b onmouseover/i);
    }
    // A stored handle that is a non-http(s) URL is not shown at all.
    expect(h).not.toContain("alert(8)");
    expect(h).toContain("&lt;img src=x onerror=alert(&quot;doc&quot;)&gt;");
    expect(h).toContain("&lt;script&gt;alert(&quot;project&quot;)&lt;/script&gt;");
    // Safety headers.
    for (const r of [home, doc]) {
      const csp = r.headers.get("content-security-policy")!;
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("style-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(r.headers.get("x-content-type-options")).toBe("nosniff");
      expect(r.headers.get("referrer-policy")).toBe("strict-origin-when-cross-origin");
    }
    // The stylesheet.
    const css = await page("/site/assets/site.css");
    expect(css.status).toBe(200);
    expect(css.headers.get("content-type")).toMatch(/^text\/css/);
    expect(css.headers.get("cache-control")).toContain("max-age=");
    expect(css.text).toContain("font");
  });

  it("changes the version (ETag) on every kind of edit, and the next request shows it", async () => {
    const p = await seedPortal();
    const tok = t.owner.token;
    const path = `/site/${p.slug}/${p.doc}`;
    await putContent(p.doc, [
      {
        id: "a",
        type: "paragraph",
        props: {},
        content: [{ type: "text", text: "First words", styles: {} }],
        children: [],
      },
    ]);
    const snapshot = (await ok("POST", "/snapshot", { token: tok, body: { documentId: p.doc, name: "v1" } })).data._id;
    let etag = (await page(path)).headers.get("etag")!;
    const seen = new Set([etag]);
    const edits: [string, () => Promise<unknown>, string?][] = [
      [
        "content put",
        () =>
          putContent(p.doc, [
            {
              id: "a",
              type: "paragraph",
              props: {},
              content: [{ type: "text", text: "Second words", styles: {} }],
              children: [],
            },
          ]),
        "Second words",
      ],
      ["snapshot restore", () => ok("POST", `/snapshot/${snapshot}/restore`, { token: tok }), "First words"],
      [
        "document rename",
        () => ok("PATCH", `/document/${p.doc}`, { token: tok, body: { name: "Renamed policy" } }),
        "Renamed policy",
      ],
      [
        "another document published",
        () => ok("POST", `/document/${p.hidden}/publish`, { token: tok, body: {} }),
        "Draft salaries",
      ],
      // Back to the state before the publish: the version before it comes back too (no needless re-render).
      ["document unpublished", () => ok("DELETE", `/document/${p.hidden}/publish`, { token: tok })],
      ["folder renamed", () => ok("PATCH", `/document/${p.folder}`, { token: tok, body: { name: "Rules" } }), "Rules"],
      ["sibling deleted", () => ok("DELETE", `/document/${p.folder}`, { token: tok })],
      ["restored", () => ok("POST", `/document/${p.folder}/restore`, { token: tok }), "Rules"],
      [
        "project renamed",
        () => ok("PATCH", `/project/${p.projectId}`, { token: tok, body: { name: "Staff handbook" } }),
        "Staff handbook",
      ],
      [
        "branding",
        () => ok("PUT", `/project/${p.projectId}/branding`, { token: tok, body: { company: { name: "Brand Co" } } }),
        "Brand Co",
      ],
      [
        "entry patched",
        () => ok("PATCH", `/project/${p.projectId}/publish/${p.slug}`, { token: tok, body: { homepage: p.doc } }),
      ],
    ];
    for (const [what, edit, expectText] of edits) {
      await edit();
      const r = await page(path, { headers: { "if-none-match": etag } });
      if (what === "sibling deleted") {
        // The folder's subtree (with the document) is gone: 404 until restored.
        expect(r.status, what).toBe(404);
        continue;
      }
      expect(r.status, what).toBe(200);
      const next = r.headers.get("etag")!;
      if (what === "document unpublished") {
        expect(next, what).not.toBe(etag);
        expect(r.text).not.toContain("Draft salaries");
        etag = next;
        continue;
      }
      expect(r.headers.get("x-portal-cache"), what).toBe("miss");
      expect(seen.has(next), `${what} did not change the ETag`).toBe(false);
      seen.add(next);
      etag = next;
      if (expectText) expect(r.text, what).toContain(expectText);
    }
  });
});
