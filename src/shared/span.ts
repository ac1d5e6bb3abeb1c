/**
 * A range of UTF-16 code units in a source string: `start` inclusive, `end` exclusive, both 0-based.
 * Offsets are used everywhere inside the library; lines and columns appear only at the edges (CLI, LSP).
 */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** A 1-based line and column (column counted in UTF-16 code units), used only at the edges. */
export interface Position {
  readonly line: number;
  readonly column: number;
}

/** A range in a file as lines and columns: 1-based, end exclusive. */
export interface Range {
  readonly start: Position;
  readonly end: Position;
}
