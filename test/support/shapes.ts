/**
 * Exact record shapes of the specification (Document, Workspace, Project) and docs/api-guide.md › Authentication (User, token), so a
 * test can insist that every member is present with its type, and nothing else is.
 */
import { expect } from "vitest";

export const DOCUMENT_KEYS = [
  "_id",
  "parentId",
  "projectId",
  "userId",
  "workspaceId",
  "name",
  "type",
  "createdAt",
  "updatedAt",
  "description",
  "reference",
  "order",
  "isPublished",
  "publishedSettings",
  "external",
  "icon",
  "emoji",
  "collaborators",
  "isDeleted",
  "commentCount",
  "openCommentCount",
].sort();

export const WORKSPACE_KEYS = [
  "_id",
  "name",
  "isDefault",
  "isShared",
  "organizationId",
  "ownerId",
  "collaborators",
  "createdAt",
  "updatedAt",
  "description",
].sort();

export const PROJECT_KEYS = [
  "_id",
  "userId",
  "workspaceId",
  "name",
  "originId",
  "reference",
  "description",
  "createdAt",
  "updatedAt",
  "icon",
  "emoji",
  "published",
  "publishedBranding",
].sort();

export const USER_KEYS = ["_id", "email", "name", "createdAt"].sort();
/** Tokens name their user: `cws_<userId>_<40 base62>` (docs/api-guide.md › Authentication). */
export const TOKEN_PATTERN = /^cws_[0-9A-HJKMNP-TV-Z]{26}_[0-9A-Za-z]{40}$/;

const isObjectOrNull = (v: unknown) => v === null || (typeof v === "object" && !Array.isArray(v));

export function expectMsTimestamp(v: unknown) {
  expect(typeof v).toBe("number");
  // Milliseconds since the epoch (docs/api-guide.md › Conventions): after 2020, not in seconds.
  expect(v as number).toBeGreaterThan(1_577_836_800_000);
  expect(v as number).toBeLessThan(Date.now() + 60_000);
}

export function expectDocumentShape(d: any) {
  expect(Object.keys(d).sort()).toEqual(DOCUMENT_KEYS);
  for (const k of ["_id", "projectId", "userId", "workspaceId", "name", "type", "description", "reference"])
    expect(typeof d[k], k).toBe("string");
  expect(d.parentId === null || typeof d.parentId === "string").toBe(true);
  expect(["FOLDER", "DOCUMENT", "EXTERNAL"]).toContain(d.type);
  expectMsTimestamp(d.createdAt);
  expectMsTimestamp(d.updatedAt);
  expect(typeof d.order).toBe("number");
  expect(typeof d.isPublished).toBe("boolean");
  expect(typeof d.isDeleted).toBe("boolean");
  for (const k of ["publishedSettings", "external", "icon", "emoji"]) expect(isObjectOrNull(d[k]), k).toBe(true);
  expect(Array.isArray(d.collaborators)).toBe(true);
  for (const c of d.collaborators) {
    expect(Object.keys(c).sort()).toEqual(["role", "userId"]);
    expect(typeof c.userId).toBe("string");
    expect(["owner", "editor", "viewer"]).toContain(c.role);
  }
}

export function expectWorkspaceShape(w: any) {
  expect(Object.keys(w).sort()).toEqual(WORKSPACE_KEYS);
  for (const k of ["_id", "name", "organizationId", "ownerId", "description"]) expect(typeof w[k], k).toBe("string");
  expect(typeof w.isDefault).toBe("boolean");
  expect(typeof w.isShared).toBe("boolean");
  expectMsTimestamp(w.createdAt);
  expectMsTimestamp(w.updatedAt);
  for (const c of w.collaborators) {
    expect(Object.keys(c).sort()).toEqual(["role", "userId"]);
    expect(["owner", "admin", "editor", "viewer"]).toContain(c.role);
  }
}

export function expectProjectShape(p: any) {
  expect(Object.keys(p).sort()).toEqual(PROJECT_KEYS);
  for (const k of ["_id", "userId", "workspaceId", "name", "originId", "reference", "description"])
    expect(typeof p[k], k).toBe("string");
  expectMsTimestamp(p.createdAt);
  expectMsTimestamp(p.updatedAt);
  expect(isObjectOrNull(p.icon)).toBe(true);
  expect(isObjectOrNull(p.emoji)).toBe(true);
  expect(Array.isArray(p.published)).toBe(true);
  expect(isObjectOrNull(p.publishedBranding)).toBe(true);
}

/** The not-found shape of E10 (spec, Errors rule 2): exactly `{ data: { _id, isNotFound: true } }`. */
export function notFoundShape(id: string) {
  return { data: { _id: id, isNotFound: true } };
}
