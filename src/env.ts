import type { DrizzleD1Database } from "drizzle-orm/d1";
import type * as schema from "./db/schema";
import type { TableFormulaCoordinator } from "./durable/TableFormulaCoordinator";
import type { DocumentRoom } from "./durable/DocumentRoom";

/** Bindings declared in wrangler.toml, `.dev.vars` and secrets. */
export interface Env {
  /** The directory database (docs/scaling.md): what is global, and today still everything else. */
  DB: D1Database;
  /** The shard databases SHARD_0 … SHARD_{n-1} of src/tenancy/kernel/map.ts (docs/scaling.md; four locally). */
  [shard: `SHARD_${number}`]: D1Database;
  BLOBS: R2Bucket;
  /** Static assets (public/, e.g. /docs/scalar.js); normally served before the Worker runs, bound for tests. */
  ASSETS?: Fetcher;
  /** One formula coordinator per table (idFromName(tableId)); see src/durable/TableFormulaCoordinator.ts. */
  TABLE_FORMULA: DurableObjectNamespace<TableFormulaCoordinator>;
  /** One collaborative room per document (idFromName(documentId)); see src/durable/DocumentRoom.ts. */
  DOCUMENT_ROOM: DurableObjectNamespace<DocumentRoom>;
  ADMIN_TOKEN?: string;
  SIGNING_SECRET?: string;
  CONVERTER_URL?: string;
  CONVERTER_SECRET?: string;
  ENVIRONMENT?: string;
  /** Bench only: delay every D1 round trip of a request by this many ms (models a distant primary). Unset in production. */
  D1_LATENCY_MS?: string;
  /** Production PDF converter (a Cloudflare Container); absent locally, where CONVERTER_URL is used. */
  PDF_CONVERTER?: DurableObjectNamespace<import("./services/converter/container").PdfConverterContainer>;
  /** How many DOCX files one E6 request converts at once (default 2, the converter's pool size here). */
  CONVERTER_CONCURRENCY?: string;
  /** Per-user request budget, all of the user's tokens together (Workers Rate Limiting binding; 300 per 60 s in wrangler.toml). */
  RATE_LIMITER?: RateLimit;
  /** Failed authentications per client address (60 per 60 s in wrangler.toml). */
  AUTH_FAILURE_LIMITER?: RateLimit;
  /**
   * "true" when the deployment sits behind Cloudflare's edge, which sets CF-Connecting-IP itself; otherwise that
   * header is ignored (src/http/clientAddress.ts).
   */
  TRUST_CF_CONNECTING_IP?: string;
  /** Automation runs and webhook deliveries (producer and consumer; see src/services/automations/queue.ts). */
  AUTOMATION_QUEUE: Queue<import("./services/automations/messages").AutomationMessage>;
  /** Comma-separated origins exempt from the webhook https/private-address rules (local receivers). */
  WEBHOOK_ALLOWED_ORIGINS?: string;
  /** Comma-separated exact origins whose browser apps may call the API (src/http/cors.ts); none by default. */
  CORS_ALLOWED_ORIGINS?: string;
  /** Days the change log keeps its entries (docs/api-guide.md › Changes, history and audit; default 30). */
  CHANGE_RETENTION_DAYS?: string;
  /** Days the organization's audit log keeps its entries (docs/api-guide.md › Changes, history and audit; default 90). */
  AUDIT_RETENTION_DAYS?: string;
  /** `off`: no change-log entries are written. Only for `npm run bench -- changes` (with and without the log). */
  CHANGE_LOG?: string;
  /**
   * The service's own host names, comma-separated (ports ignored): no portal may claim one as its domain, whatever a
   * request's Host says. `npm start` sets the names it listens on; a deployment sets its API's host names.
   */
  SERVICE_HOSTNAMES?: string;
  /** "off" verifies portal domains at once (local use and acceptance runs only); anything else requires the TXT record. */
  DOMAIN_VERIFICATION?: string;
  /** The DNS-over-HTTPS resolver (JSON API) that domain ownership checks ask; default https://cloudflare-dns.com/dns-query. */
  DOH_URL?: string;
  /** Portal password attempts: 10 per 60 s per client address and portal (docs/api-guide.md › Automations, published portals, collaborative editing). */
  PORTAL_LOGIN_LIMITER?: RateLimit;
  /** Portal password attempts: 100 per 60 s per portal across all client addresses (docs/api-guide.md, "Limits"). */
  PORTAL_LOGIN_PORTAL_LIMITER?: RateLimit;
}

export type Db = DrizzleD1Database<typeof schema>;

/** The directory (`DB`) or a shard database (`SHARD_k`, src/tenancy/kernel/map.ts). */
export type DatabaseBinding = "DB" | `SHARD_${number}`;

export interface AuthUser {
  _id: string;
  email: string;
  name: string;
  tokenId: string;
  /** Expiry of the presented token (null: never); tokens it mints cannot outlive it. */
  tokenExpiresAt: number | null;
  /** Scopes of the presented token (docs/api-guide.md › Tokens and scopes); null or absent: full rights. */
  tokenScopes?: string[] | null;
}

export type HonoEnv = {
  Bindings: Env;
  Variables: {
    db: Db;
    /** The directory database (docs/scaling.md). */
    dir: Db;
    /** This request's client of a database (counted, in a session), opened on first use. */
    database: (binding: DatabaseBinding) => Db;
    user: AuthUser;
    requestId: string;
    /** The service context of this request (src/http/route.ts `ctxOf`). */
    ctx: import("./services/context").ServiceContext;
    /** This request's D1 round-trip counter (src/db/instrument.ts). */
    roundTrips: import("./db/instrument").RoundTripCounter;
    /** Work started on the request's behalf (the lastUsedAt touch) that must finish before it answers. */
    background: Promise<unknown>[];
    /** The scope the route's operation needs of a scoped token (src/auth/scopes.ts). */
    scope: string;
  };
};
