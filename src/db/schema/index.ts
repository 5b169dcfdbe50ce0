export * from "./identity";
export * from "./workspaces";
export * from "./documents";
export * from "./tables";
export * from "./content";
export * from "./automations";
export * from "./http";
export * from "./portals";
