/**
 * Text as spreadsheets read it as a number (Excel's VALUE, and text in arithmetic): plain and grouped numbers,
 * currency, percent, parentheses for negatives, dates and times (as serial numbers in the 1900 date system).
 * No imports, so both values.ts and excel.ts can use it.
 */
const MS_PER_DAY = 86_400_000;
const EPOCH = 25_569;
const dateSerial = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d) / MS_PER_DAY + EPOCH;

export const MONTHS = [
  "january",
  "february",
  "march",
  "april",
  "may",
  "june",
  "july",
  "august",
  "september",
  "october",
  "november",
  "december",
];

/** Text as Excel's VALUE reads it: numbers (thousands separators, currency, percent, parentheses), dates and times. */
export function parseNumberText(raw: string): number | undefined {
  let s = raw.trim();
  if (s === "") return undefined;
  let sign = 1;
  if (/^\(.*\)$/.test(s)) {
    sign = -1;
    s = s.slice(1, -1).trim();
  }
  if (/^[+-]/.test(s)) {
    if (s[0] === "-") sign = -sign;
    s = s.slice(1).trim();
  }
  if (s.startsWith("$")) s = s.slice(1).trim();
  let percent = false;
  if (s.endsWith("%")) {
    percent = true;
    s = s.slice(0, -1).trim();
  }
  if (/^(\d{1,3}(,\d{3})+|\d+)(\.\d*)?(e[+-]?\d+)?$|^\.\d+(e[+-]?\d+)?$/i.test(s)) {
    const n = Number(s.replace(/,/g, ""));
    return sign * (percent ? n / 100 : n);
  }
  if (percent || sign === -1) return undefined;
  return parseDateTimeText(s);
}

function parseTime(s: string): number | undefined {
  const m = /^(\d{1,2}):(\d{1,2})(?::(\d{1,2}(?:\.\d+)?))?\s*([ap]m?)?$/i.exec(s.trim());
  if (!m) return undefined;
  let h = Number(m[1]);
  const min = Number(m[2]);
  const sec = Number(m[3] ?? 0);
  if (m[4]) {
    if (h > 12) return undefined;
    const pm = m[4].toLowerCase().startsWith("p");
    h = (h % 12) + (pm ? 12 : 0);
  }
  if (min > 59 || sec >= 60) return undefined;
  return (h * 3600 + min * 60 + sec) / 86_400;
}

function parseDateTimeText(s: string): number | undefined {
  const time = parseTime(s);
  if (time !== undefined) return time;
  const [datePart, ...rest] = s.split(/\s+(?=\d{1,2}:)/);
  const t = rest.length ? parseTime(rest.join(" ")) : 0;
  if (t === undefined) return undefined;
  const d = datePart!.trim();
  let y: number, mo: number, day: number;
  let m: RegExpExecArray | null;
  if ((m = /^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$/.exec(d))) [y, mo, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  else if ((m = /^(\d{1,2})[-/](\d{1,2})[-/](\d{2}|\d{4})$/.exec(d)))
    [mo, day, y] = [Number(m[1]), Number(m[2]), Number(m[3])];
  else if ((m = /^(\d{1,2})[- ]([a-z]{3,})[- ,]*(\d{2}|\d{4})$/i.exec(d))) {
    const i = MONTHS.findIndex((name) => name.startsWith(m![2]!.toLowerCase()));
    if (i < 0) return undefined;
    [day, mo, y] = [Number(m[1]), i + 1, Number(m[3])];
  } else if ((m = /^([a-z]{3,})\.?\s+(\d{1,2}),?\s+(\d{4})$/i.exec(d))) {
    const i = MONTHS.findIndex((name) => name.startsWith(m![1]!.toLowerCase()));
    if (i < 0) return undefined;
    [mo, day, y] = [i + 1, Number(m[2]), Number(m[3])];
  } else return undefined;
  if (y < 100) y += y < 30 ? 2000 : 1900;
  if (mo < 1 || mo > 12 || day < 1 || day > new Date(Date.UTC(y, mo, 0)).getUTCDate()) return undefined;
  return dateSerial(y, mo, day) + t;
}
