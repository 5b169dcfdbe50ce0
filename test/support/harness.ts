/**
 * A small harness over the real Worker (SELF.fetch into workerd, real D1/R2): every test file seeds its own
 * tenant through the public HTTP API, never through fixed ids or test order.
 */
import { SELF } from "cloudflare:test";
import { expect } from "vitest";

export const ADMIN_TOKEN = "test-admin-token";
export const BASE = "http://api.test";

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface CallOptions {
  token?: string | null;
  body?: unknown;
  raw?: BodyInit;
  headers?: Record<string, string>;
  query?: Record<string, string | number | undefined>;
}

/**
 * A client address of its own for a call that names none (the test Worker trusts CF-Connecting-IP as behind the
 * edge): per-address limits such as failed authentication then count each call apart, as distinct clients.
 */
function testClientAddress() {
  const b = crypto.getRandomValues(new Uint8Array(3));
  return `100.${64 + (b[0]! & 63)}.${b[1]}.${b[2]}`;
}

export async function call<T = any>(method: string, path: string, opts: CallOptions = {}): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (!Object.keys(headers).some((k) => k.toLowerCase() === "cf-connecting-ip"))
    headers["cf-connecting-ip"] = testClientAddress();
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: BodyInit | undefined = opts.raw;
  if (opts.body !== undefined) {
    headers["content-type"] ??= "application/json";
    body = JSON.stringify(opts.body);
  }
  const url = new URL(path, BASE);
  for (const [k, v] of Object.entries(opts.query ?? {})) if (v !== undefined) url.searchParams.set(k, String(v));
  const res = await SELF.fetch(url, { method, headers, body });
  const type = res.headers.get("content-type") ?? "";
  const parsed = type.includes("application/json") ? await res.json() : await res.arrayBuffer();
  return { status: res.status, body: parsed as T, headers: res.headers };
}

/** call() that insists on a status and returns the body. */
export async function ok<T = any>(method: string, path: string, opts: CallOptions = {}, status = 200): Promise<T> {
  const res = await call<T>(method, path, opts);
  if (res.status !== status) {
    throw new Error(`${method} ${path} → ${res.status}, expected ${status}: ${JSON.stringify(res.body)}`);
  }
  return res.body;
}

export function expectError(res: ApiResponse, status: number, error: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.body).toMatchObject({ error, message: expect.any(String) });
  expect(JSON.stringify(res.body)).not.toMatch(/\bat .+\.(ts|js):\d+|SQLITE|sql:/i);
}

let counter = 0;
export function uniqueEmail(prefix = "user") {
  counter += 1;
  return `${prefix}-${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 8)}@example.com`;
}

export interface RegisteredUser {
  id: string;
  email: string;
  name: string;
  token: string;
  organizationId: string;
  workspaceId: string;
}

export async function registerUser(name = "Test User", email = uniqueEmail()): Promise<RegisteredUser> {
  const body = await ok("POST", "/admin/users", { token: ADMIN_TOKEN, body: { email, name } });
  const d = body.data;
  return {
    id: d.user._id,
    email: d.user.email,
    name,
    token: d.token.token,
    organizationId: d.organization._id,
    workspaceId: d.workspace._id,
  };
}

export async function addWorkspaceCollaborator(
  owner: RegisteredUser,
  workspaceId: string,
  who: RegisteredUser,
  role: "admin" | "editor" | "commenter" | "viewer",
) {
  await ok("POST", `/workspace/${workspaceId}/collaborator`, { token: owner.token, body: { email: who.email, role } });
}

export interface Tenant {
  owner: RegisteredUser;
  editor: RegisteredUser;
  viewer: RegisteredUser;
  outsider: RegisteredUser;
  workspaceId: string;
  organizationId: string;
  projectId: string;
  folderId: string;
  docId: string;
  doc2Id: string;
}

/** An owner with a project holding a folder with two documents, plus a workspace editor, a viewer and an outsider. */
export async function seedTenant(): Promise<Tenant> {
  const [owner, editor, viewer, outsider] = await Promise.all([
    registerUser("Owner"),
    registerUser("Editor"),
    registerUser("Viewer"),
    registerUser("Outsider"),
  ]);
  const workspaceId = owner.workspaceId;
  // The two collaborators and the project touch different rows: sent together, they cost one request's wait.
  const [, , project] = await Promise.all([
    addWorkspaceCollaborator(owner, workspaceId, editor, "editor"),
    addWorkspaceCollaborator(owner, workspaceId, viewer, "viewer"),
    ok("POST", "/project", { token: owner.token, body: { workspaceId, name: "Project" } }),
  ]);
  const projectId = project.data._id;
  const folder = await ok("POST", "/document", {
    token: owner.token,
    body: { projectId, name: "Folder", type: "FOLDER" },
  });
  const doc = await ok("POST", "/document", {
    token: owner.token,
    body: { projectId, parentId: folder.data._id, name: "Doc 1", type: "DOCUMENT" },
  });
  const doc2 = await ok("POST", "/document", {
    token: owner.token,
    body: { projectId, parentId: folder.data._id, name: "Doc 2", type: "DOCUMENT" },
  });
  return {
    owner,
    editor,
    viewer,
    outsider,
    workspaceId,
    organizationId: owner.organizationId,
    projectId,
    folderId: folder.data._id,
    docId: doc.data._id,
    doc2Id: doc2.data._id,
  };
}
