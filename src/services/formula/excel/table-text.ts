/** The catalogue's Excel entries, part 3: text, dates and financial. (docs/api-guide.md › Formulas, "Spreadsheet semantics"; split from the catalogue in excel.ts.) */
import { parseNumberText } from "../parseText";
import { Errors, type FormulaValue, toText } from "../values";
import { dollar } from "./criteria";
import { duration, price, vdb, yieldFn } from "./financial";
import { formatText } from "./format";
import { type ExcelFunction, type V, argNumber, flat, isErr, lib, serialToDate } from "./shared";
import { datedif } from "./table-core";
import { proper, search, textAround, textSplit, value } from "./text";

export const TEXT_DATE_FINANCE_FUNCTIONS: Record<string, ExcelFunction> = {
  // Text.
  DOLLAR: { min: 1, max: 2, impl: dollar },
  CHAR: {
    min: 1,
    max: 1,
    impl: (n: V) => {
      const x = argNumber(n);
      if (isErr(x)) return x;
      const k = Math.trunc(x);
      return k < 1 || k > 255 ? Errors.value : String.fromCharCode(k);
    },
  },
  NOT: {
    min: 1,
    max: 1,
    impl: (v: V) => {
      if (typeof v === "string") {
        const u = v.trim().toUpperCase();
        return u === "TRUE" ? false : u === "FALSE" ? true : Errors.value;
      }
      if (Array.isArray(v)) return Errors.value;
      return !(typeof v === "number" ? v !== 0 : Boolean(v));
    },
  },
  ...Object.fromEntries(
    ["DEC2HEX", "BIN2HEX", "OCT2HEX", "BASE"].map((name) => {
      const impl = lib[name]!;
      return [
        name,
        {
          min: name === "BASE" ? 2 : 1,
          max: name === "BASE" ? 3 : 2,
          impl: (...a: V[]) => {
            const r = impl(...a);
            return typeof r === "string" ? r.toUpperCase() : r;
          },
        },
      ];
    }),
  ),
  TIMEVALUE: {
    min: 1,
    max: 1,
    impl: (t: V) => {
      const x = typeof t === "string" ? parseNumberText(t) : undefined;
      return x === undefined ? Errors.value : x - Math.floor(x);
    },
  },
  DATEVALUE: {
    min: 1,
    max: 1,
    impl: (t: V) => {
      const x = typeof t === "string" ? parseNumberText(t) : undefined;
      // A date, as DATE gives it (the column reads it back as a date).
      return x === undefined || x < 1 ? Errors.value : serialToDate(Math.floor(x));
    },
  },
  // Text.
  TEXT: { min: 2, max: 2, impl: formatText },
  SEARCH: { min: 2, max: 3, impl: search },
  PROPER: { min: 1, max: 1, impl: proper },
  VALUE: { min: 1, max: 1, impl: value },
  TEXTBEFORE: { min: 2, max: 6, impl: textAround(false) },
  TEXTAFTER: { min: 2, max: 6, impl: textAround(true) },
  TEXTSPLIT: { min: 2, max: 6, impl: textSplit },
  /** ARRAYJOIN(list, [separator]): a list (a lookup, say) as text, blanks left out; ", " by default (Airtable's). */
  ARRAYJOIN: {
    min: 1,
    max: 2,
    impl: (list: V, separator: V) => {
      const sep = separator === undefined ? ", " : toText((separator ?? null) as FormulaValue);
      if (isErr(sep)) return sep;
      const parts: string[] = [];
      for (const item of flat(list)) {
        if (item === null || item === undefined || item === "") continue;
        const text = toText(item as FormulaValue);
        if (isErr(text)) return text;
        parts.push(text);
      }
      // The result's length is known before joining: a long separator between many items is refused without
      // building a string of hundreds of megabytes first.
      const length = parts.reduce((n, p) => n + p.length, 0) + sep.length * Math.max(0, parts.length - 1);
      return length > 32_767 ? Errors.value : parts.join(sep);
    },
  },
  // Dates.
  DATEDIF: { min: 3, max: 3, impl: datedif },
  // Financial.
  VDB: { min: 5, max: 7, impl: vdb },
  PRICE: { min: 6, max: 7, impl: price },
  YIELD: { min: 6, max: 7, impl: yieldFn },
  DURATION: { min: 5, max: 6, impl: duration },
};
