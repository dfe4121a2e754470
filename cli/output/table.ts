export interface Column<T> {
  header: string;
  value: (row: T) => string;
  /** Numbers read best aligned on the right. */
  align?: 'left' | 'right';
}

/**
 * Rows as aligned columns under an upper-case header, two spaces apart, no trailing blanks: readable in a terminal
 * and still easy to `grep`/`awk`. Widths count UTF-16 units; addresses and assets are ASCII.
 */
export function renderTable<T>(columns: readonly Column<T>[], rows: readonly T[]): string[] {
  const cells = rows.map((row) => columns.map((c) => c.value(row)));
  const widths = columns.map((c, i) =>
    Math.max(c.header.length, ...cells.map((line) => line[i]!.length)),
  );
  const render = (line: readonly string[]) =>
    line
      .map((cell, i) =>
        columns[i]!.align === 'right' ? cell.padStart(widths[i]!) : cell.padEnd(widths[i]!),
      )
      .join('  ')
      .trimEnd();
  return [render(columns.map((c) => c.header.toUpperCase())), ...cells.map(render)];
}
