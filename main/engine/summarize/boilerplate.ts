/**
 * Text a reader skips: copyright and licence notices, "this file is part of", badges,
 * navigation, tables of contents, generator stamps. The extractive summarizer never leads with
 * it, and a folder's summary leaves out the children that are nothing else (licence files,
 * changelogs).
 */

const NOTICE =
  /\bcopyright\s*(?:\(c\)|©|\d{4})|©\s*\d{4}|\(c\)\s*\d{4}|all rights reserved|\bspdx-license-identifier\b|licensed under\b|under the terms of the\b|permission is hereby granted|this (?:file|program|library|software) is (?:part of|free software|distributed)|without (?:any )?warranty|(?:copyright|permission) notice|\bgnu (?:general|lesser) public license\b|apache license,? version|版权所有|保留所有权利/i;

const NAVIGATION =
  /^(?:table of contents|contents|index|navigation|next|previous|prev|up|home|top|back to top|skip to (?:main )?content|quick search|edit on github|edit this page|show source|this page|search|modules|next topic|previous topic|目录|上一页|下一页|返回顶部)\s*[:|»«›‹]?$/i;

const NAVIGATION_RUN = /(?:\b(?:index|modules|next|previous|prev|home|up)\b\s*[|»«›‹]\s*){2,}|\breturn to (?:the )?main contents\b|^section: .{0,40}\bupdated: /i;

/** A credit line: a name and an address ("Chet Ramey <chet.ramey@case.edu>", "Thanks to ... for this one"). */
const CREDIT = /^(?:(?:written|contributed|maintained) by |thanks to |author:\s*)?[\p{L} .,'()-]{2,60}\s*<[^<>\s]+@[^<>\s]+>(?: for this one)?\.?$|^thanks to .*<[^<>\s]+@[^<>\s]+>/iu;

const STAMP = /^(?:last (?:updated|modified|changed)|generated (?:by|on|with)|created (?:by|with) sphinx|built with|this page was generated|documentation generated)\b/i;

/** A block of prose that is a notice, navigation or a stamp rather than content. */
export function isBoilerplate(text: string): boolean {
  const t = text.trim();
  if (t.length === 0) return true;
  if (NOTICE.test(t)) return true;
  if (NAVIGATION.test(t) || NAVIGATION_RUN.test(t)) return true;
  if (STAMP.test(t) || CREDIT.test(t)) return true;
  // Nothing but punctuation, numbers and symbols (a rule, a page number, a stray separator).
  if (!/\p{L}{2}/u.test(t)) return true;
  return false;
}

/** A Debian machine-readable copyright file (DEP-5), or a part of one. */
export function isDebianCopyright(text: string): boolean {
  return /^(?:Format: https?:\/\/www\.debian\.org\/doc\/packaging-manuals\/copyright-format|Files: |License: |Copyright: )/m.test(text.slice(0, 400)) && /^(?:Files|License|Copyright): /m.test(text);
}

/** Files that carry only legal text or history: a folder's summary does not describe itself by them. */
const LEGAL_OR_HISTORY_NAME =
  /^(?:copying|copyright|licen[cs]e|notice|authors|contributors|changelog|changes|history|news)(?:[-_.](?:mit|apache|bsd|isc|gpl\w*|lgpl\w*|debian|md|markdown|txt|rst|html?|adoc|gz))*\/?$/i;

export function isLegalOrHistoryName(name: string): boolean {
  return LEGAL_OR_HISTORY_NAME.test(name);
}
