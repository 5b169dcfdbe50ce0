/**
 * listAuditLog (src/routes/audit/list.ts): the security events of requests that write nothing themselves — each
 * export and download recorded once, with the caller, the token it used and the client address — and a scoped
 * token's entries only in the organizations it reaches (docs/api-guide.md › Changes, history and audit).
 */
import { beforeAll, describe, expect, it } from "vitest";
import { buildDocx } from "../../../converter/test/fixtures";
import { encodeBase64 } from "../../../src/lib/base64";
import { call, ok, registerUser, seedTenant, type Tenant } from "../../support/harness";
import { eventually, sleep } from "../../support/automations";
import { AUDIO_HEADS, bytesWithHead } from "../../support/content-fixtures";
import { uploadAudio } from "../../support/audio";
import { newDocxIn } from "../../support/docx";
import { makeTable } from "../../support/tableHarness";

let t: Tenant;
let viewerTokenId: string;
beforeAll(async () => {
  t = await seedTenant();
  viewerTokenId = (await ok("GET", "/token/all", { token: t.viewer.token })).data[0]._id;
});

const IP = "2001:db8::7";
const asViewer = { headers: { "cf-connecting-ip": IP } };

/** The organization's entries of `kind` at or after `from`, oldest first. */
async function entries(kind: string, from: number, org = t.organizationId, token = t.owner.token) {
  const page = await ok("GET", `/organization/${org}/audit?kind=${kind}&from=${from}&limit=1000`, { token });
  return (page.data as any[]).reverse();
}

describe("listAuditLog: export.* and download.*", () => {
  it("CSV, Markdown archive, DOCX, PDF, E5 data and an audio download: each recorded once, with the viewer, token and address", async () => {
    const from = Date.now();
    const viewer = { ...asViewer, token: t.viewer.token };
    const table = await makeTable(t.owner.token, t.projectId, "Exported");
    const docx = await newDocxIn(t, "Audited.docx");
    const audio = await uploadAudio(t, bytesWithHead(AUDIO_HEADS["audio/mpeg"]!, 4000), { fileName: "a.mp3" });
    expect(audio.status).toBe(200);
    const reads = [
      call("GET", `/table/${table.tableId}/export.csv`, viewer),
      call("GET", `/document/${t.folderId}/export.zip`, viewer),
      call("GET", `/document/docx/${docx._id}/export`, viewer),
      call("POST", "/export/get-documents-data", {
        ...viewer,
        body: { projectId: t.projectId, documentIds: [t.docId] },
      }),
      call("POST", "/export/doc-to-pdf", {
        ...viewer,
        body: { data: [{ documentId: t.doc2Id, docx: encodeBase64(buildDocx({ pages: 1 })) }] },
      }),
      call("GET", `/media/audio/${audio.body.data._id}`, viewer),
    ];
    for (const res of await Promise.all(reads)) expect(res.status).toBe(200);
    const want = [
      ["export.csv", table.tableId],
      ["export.archive", t.folderId],
      ["export.docx", docx._id],
      ["export.documents", t.projectId],
      ["export.pdf", t.doc2Id],
      ["download.audio", audio.body.data._id],
    ].sort();
    const recorded = async () => [...(await entries("export.*", from)), ...(await entries("download.*", from))];
    const got = await eventually(async () => {
      const list = await recorded();
      return list.length >= want.length && list;
    });
    // Recorded after each response: given a moment more, nothing is recorded twice.
    await sleep(300);
    expect((await recorded()).length).toBe(got.length);
    expect(got.map((e) => [e.kind, e.recordId]).sort()).toEqual(want);
    for (const e of got)
      expect(e).toMatchObject({
        actor: { type: "user", userId: t.viewer.id, tokenId: viewerTokenId },
        clientAddress: IP,
        organizationId: t.organizationId,
      });
  });

  it("an export refused (no access) records nothing", async () => {
    const from = Date.now();
    expect((await call("GET", `/document/${t.docId}/export.md`, { token: t.outsider.token })).status).toBe(404);
    await sleep(300);
    expect(await entries("export.*", from)).toEqual([]);
  });
});

describe("listAuditLog: token.* of a scoped token", () => {
  it("a token limited to one organization is recorded in that one only", async () => {
    const from = Date.now();
    const other = await registerUser("Second organization");
    // A collaborator of the other organization's workspace (and so a member of that organization).
    await ok("POST", `/workspace/${other.workspaceId}/collaborator`, {
      token: other.token,
      body: { email: t.owner.email, role: "editor" },
    });
    const made = await ok("POST", "/token", {
      token: t.owner.token,
      body: { name: "limited", resources: [other.organizationId, other.workspaceId] },
    });
    const there = await eventually(async () => {
      const list = await entries("token.created", from, other.organizationId, other.token);
      return list.length >= 1 && list;
    });
    await sleep(300);
    // Two of its resources are in the organization: one entry all the same.
    expect(await entries("token.created", from, other.organizationId, other.token)).toHaveLength(1);
    expect(there[0]).toMatchObject({ recordId: made.data._id, actor: { userId: t.owner.id } });
    expect(await entries("token.created", from)).toEqual([]);
  });
});
