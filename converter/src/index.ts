export { startConverter, SECRET_HEADER, type RunningConverter, type StartConverterOptions } from "./server.ts";
export { optionsFromEnv, timeoutFor, type ConverterOptions } from "./config.ts";
export { OfficePool, type PoolHealth, type ConversionResult } from "./pool.ts";
export type { SlotInfo, SlotState } from "./office.ts";
export { checkDocx } from "./docx.ts";
