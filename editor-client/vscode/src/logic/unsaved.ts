/**
 * Keeping the user's unsaved typing out of the file when the agent edits a
 * document that has unsaved changes: the disk gets its own content plus the
 * agent's change. The typing is the region where the document differs from
 * the disk (between their common first and last lines); the agent's change
 * must lie outside it. Free of VS Code so it runs under plain Node.
 */

/** The number of leading and trailing lines a and b share (not overlapping). */
export function commonEnds(a: string[], b: string[]): [number, number] {
  const n = Math.min(a.length, b.length);
  let p = 0;
  while (p < n && a[p] === b[p]) {
    p++;
  }
  let s = 0;
  while (s < n - p && a[a.length - 1 - s] === b[b.length - 1 - s]) {
    s++;
  }
  return [p, s];
}

/**
 * The text to write to disk: `disk` with the change that turned `buffer`
 * into `proposed`, or an error message when the change touches lines the
 * user changed without saving. Texts are whole documents.
 */
export function diskText(buffer: string, proposed: string, disk: string): { text: string } | { error: string } {
  const b = buffer.split("\n");
  const n = proposed.split("\n");
  const d = disk.split("\n");
  const [p, s] = commonEnds(b, d);
  // The typed region of the buffer: lines [p, b.length - s).
  const midEnd = b.length - s;
  // The agent's change is where proposed differs from buffer.
  const [pp, ps] = commonEnds(b, n);
  const changeStart = pp;
  const changeEnd = b.length - ps; // in buffer lines, exclusive
  const touchesTyping = p < midEnd && changeStart < midEnd && changeEnd > p;
  const insertInside = changeStart === changeEnd && changeStart > p && changeStart < midEnd;
  if (touchesTyping || insertInside) {
    return { error: "the agent's change overlaps lines you changed without saving" };
  }
  if (p >= midEnd) {
    // No typing (buffer equals disk): the proposed text is the disk's.
    return { text: proposed };
  }
  if (changeEnd <= p) {
    // The change is before the typed region.
    const shift = n.length - b.length;
    return { text: [...n.slice(0, p + shift), ...d.slice(p)].join("\n") };
  }
  // The change is after the typed region.
  return { text: [...d.slice(0, d.length - s), ...n.slice(midEnd)].join("\n") };
}
