import type { Router } from "../../openapi";
import { registerUploadAudio } from "./uploadAudio";
import { registerStreamAudio } from "./streamAudio";
import { registerGetAudio } from "./getAudio";

/** Audio media: E9 upload, signed streaming, fresh records. */
export function registerMediaRoutes(app: Router) {
  registerUploadAudio(app);
  registerStreamAudio(app);
  registerGetAudio(app);
}
