/**
 * The document operations, in registration order: static paths (`/document/invite-user`, `/document/all/…`)
 * before `/document/{documentId}`. `/document/docx/…` (src/routes/docx) must also be registered before this list.
 */
import type { Router } from "../../openapi";
import { registerCheckDocumentAccess } from "./checkAccess";
import { registerCreateDocument } from "./create";
import { registerDeleteDocument } from "./delete";
import { registerGetDocument } from "./get";
import { registerInviteUser } from "./invite";
import { registerListDocuments } from "./listByProject";
import { registerPublishDocument, registerUnpublishDocument } from "./publish";
import { registerRestoreDocument } from "./restore";
import { registerUpdateDocument } from "./update";

export function registerDocumentRoutes(app: Router) {
  registerInviteUser(app);
  registerCreateDocument(app);
  registerListDocuments(app);
  registerGetDocument(app);
  registerUpdateDocument(app);
  registerDeleteDocument(app);
  registerRestoreDocument(app);
  registerPublishDocument(app);
  registerUnpublishDocument(app);
  registerCheckDocumentAccess(app);
}
