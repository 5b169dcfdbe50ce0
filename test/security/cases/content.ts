import type { CaseFactory, SecurityCase } from "../types";
import { call, ok } from "../../support/harness";
import { AUDIO_HEADS, bytesWithHead, docxBytes, DOCX_TYPE } from "../../support/content-fixtures";

export const contentCases: CaseFactory = async (t): Promise<SecurityCase[]> => {
  const docx = await call("POST", "/document/docx", {
    token: t.owner.token,
    raw: docxBytes(),
    query: { projectId: t.projectId, name: "Security DOCX", parentId: t.folderId },
    headers: { "content-type": DOCX_TYPE },
  });
  const docxId = docx.body.data._id as string;
  await ok("PUT", `/document/${t.docId}/content`, { token: t.owner.token, body: { blocks: ["secret"] } });
  const snapshot = await ok("POST", "/snapshot", {
    token: t.owner.token,
    body: { documentId: t.docId, name: "Security" },
  });
  const snapshotId = snapshot.data._id as string;
  const mp3 = () => bytesWithHead(AUDIO_HEADS["audio/mpeg"]!, 256);
  const audio = await call("POST", "/media/audio", {
    token: t.owner.token,
    raw: mp3(),
    query: { workspaceId: t.workspaceId, documentId: t.docId, fileName: "a.mp3", mimeType: "audio/mpeg" },
  });
  const audioId = audio.body.data._id as string;

  return [
    { name: "GET /document/{id}/content", method: "GET", path: `/document/${t.docId}/content` },
    {
      name: "PUT /document/{id}/content",
      method: "PUT",
      path: `/document/${t.docId}/content`,
      body: { blocks: ["x"] },
      viewerForbidden: true,
    },
    { name: "GET /document/{id}/settings", method: "GET", path: `/document/${t.docId}/settings` },
    {
      name: "PUT /document/{id}/settings",
      method: "PUT",
      path: `/document/${t.docId}/settings`,
      body: { listTemplateId: "x" },
      viewerForbidden: true,
    },
    {
      name: "POST /document/docx",
      method: "POST",
      path: "/document/docx",
      query: { projectId: t.projectId, name: "x", parentId: t.folderId },
      raw: () => docxBytes(),
      headers: { "content-type": DOCX_TYPE },
      viewerForbidden: true,
    },
    {
      name: "PUT /document/docx/{id}",
      method: "PUT",
      path: `/document/docx/${docxId}`,
      raw: () => docxBytes(),
      viewerForbidden: true,
    },
    { name: "E21 GET /document/docx/{id}/export", method: "GET", path: `/document/docx/${docxId}/export` },
    { name: "E18 POST /document/docx/{id}/mark-seeded", method: "POST", path: `/document/docx/${docxId}/mark-seeded` },
    {
      name: "E9 POST /media/audio",
      method: "POST",
      path: "/media/audio",
      query: { workspaceId: t.workspaceId, documentId: t.docId, fileName: "a.mp3", mimeType: "audio/mpeg" },
      raw: mp3,
      headers: { "content-type": "application/octet-stream" },
      viewerForbidden: true,
    },
    { name: "GET /media/audio/{id}", method: "GET", path: `/media/audio/${audioId}` },
    {
      name: "POST /snapshot",
      method: "POST",
      path: "/snapshot",
      body: { documentId: t.docId, name: "x" },
      viewerForbidden: true,
    },
    { name: "GET /snapshot/all/{documentId}", method: "GET", path: `/snapshot/all/${t.docId}` },
    { name: "GET /snapshot/{id}", method: "GET", path: `/snapshot/${snapshotId}` },
    {
      name: "E8 PUT /snapshot/{id}",
      method: "PUT",
      path: `/snapshot/${snapshotId}`,
      body: { name: "x" },
      viewerForbidden: true,
    },
    {
      name: "POST /snapshot/{id}/restore",
      method: "POST",
      path: `/snapshot/${snapshotId}/restore`,
      viewerForbidden: true,
    },
    { name: "DELETE /snapshot/{id}", method: "DELETE", path: `/snapshot/${snapshotId}`, viewerForbidden: true },
  ];
};
