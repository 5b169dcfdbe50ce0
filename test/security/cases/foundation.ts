import type { CaseFactory } from "../types";
import { ok } from "../../support/harness";

export const foundationCases: CaseFactory = async (t) => {
  const subfolder = await ok("POST", "/document", {
    token: t.owner.token,
    body: { projectId: t.projectId, parentId: t.folderId, name: "Sub", type: "FOLDER" },
  });
  return [
    { name: "GET /me", method: "GET", path: "/me", outsider: { status: 200 } },
    { name: "POST /token", method: "POST", path: "/token", body: { name: "x" }, outsider: { status: 200 } },
    { name: "GET /token/all", method: "GET", path: "/token/all", outsider: { status: 200 } },
    {
      name: "DELETE /token/{id}",
      method: "DELETE",
      path: `/token/${t.owner.id}`,
      outsider: { status: 404, error: "NotFoundError" },
    },
    {
      name: "POST /organization",
      method: "POST",
      path: "/organization",
      body: { name: "x" },
      outsider: { status: 200 },
    },
    { name: "GET /organization/all", method: "GET", path: "/organization/all", outsider: { status: 200 } },
    {
      name: "POST /organization/{id}/member",
      method: "POST",
      path: `/organization/${t.organizationId}/member`,
      body: { email: t.outsider.email, role: "member" },
    },
    {
      name: "E17 GET /workspace/all/{orgId}",
      method: "GET",
      path: `/workspace/all/${t.organizationId}`,
      outsider: { status: 200, body: { data: [] } },
    },
    {
      name: "POST /workspace",
      method: "POST",
      path: "/workspace",
      body: { organizationId: t.organizationId, name: "w" },
    },
    { name: "GET /workspace/{id}", method: "GET", path: `/workspace/${t.workspaceId}` },
    {
      name: "PATCH /workspace/{id}",
      method: "PATCH",
      path: `/workspace/${t.workspaceId}`,
      body: { name: "hijack" },
      viewerForbidden: true,
    },
    {
      name: "POST /workspace/{id}/collaborator",
      method: "POST",
      path: `/workspace/${t.workspaceId}/collaborator`,
      body: { email: t.outsider.email, role: "admin" },
      viewerForbidden: true,
    },
    {
      name: "DELETE /workspace/{id}/collaborator/{userId}",
      method: "DELETE",
      path: `/workspace/${t.workspaceId}/collaborator/${t.editor.id}`,
      viewerForbidden: true,
    },
    {
      name: "POST /project",
      method: "POST",
      path: "/project",
      body: { workspaceId: t.workspaceId, name: "p" },
      viewerForbidden: true,
    },
    { name: "E12 GET /project/all/{workspaceId}", method: "GET", path: `/project/all/${t.workspaceId}` },
    { name: "GET /project/{id}", method: "GET", path: `/project/${t.projectId}` },
    {
      name: "PATCH /project/{id}",
      method: "PATCH",
      path: `/project/${t.projectId}`,
      body: { name: "x" },
      viewerForbidden: true,
    },
    {
      name: "POST /document",
      method: "POST",
      path: "/document",
      body: { projectId: t.projectId, parentId: t.folderId, name: "d", type: "DOCUMENT" },
      viewerForbidden: true,
    },
    { name: "GET /document/all/{projectId}", method: "GET", path: `/document/all/${t.projectId}` },
    {
      name: "E10 GET /document/{id}",
      method: "GET",
      path: `/document/${t.docId}`,
      outsider: { status: 404, body: { data: { _id: t.docId, isNotFound: true } } },
    },
    {
      name: "PATCH /document/{id}",
      method: "PATCH",
      path: `/document/${t.docId}`,
      body: { name: "x" },
      viewerForbidden: true,
    },
    { name: "DELETE /document/{id}", method: "DELETE", path: `/document/${subfolder.data._id}`, viewerForbidden: true },
    {
      name: "POST /document/{id}/restore",
      method: "POST",
      path: `/document/${t.docId}/restore`,
      viewerForbidden: true,
    },
    {
      name: "POST /document/{id}/publish",
      method: "POST",
      path: `/document/${t.docId}/publish`,
      body: {},
      viewerForbidden: true,
    },
    {
      name: "DELETE /document/{id}/publish",
      method: "DELETE",
      path: `/document/${t.docId}/publish`,
      viewerForbidden: true,
    },
    {
      name: "E7 POST /document/invite-user",
      method: "POST",
      path: "/document/invite-user",
      body: { email: t.outsider.email, documentId: t.docId },
      viewerForbidden: true,
    },
    {
      name: "E20 GET /access/document/{id}",
      method: "GET",
      path: `/access/document/${t.docId}`,
      outsider: { status: 200, body: { data: false } },
    },
    { name: "GET /notification/all", method: "GET", path: "/notification/all", outsider: { status: 200 } },
    { name: "POST /notification/{id}/read", method: "POST", path: `/notification/${t.docId}/read` },
  ];
};
