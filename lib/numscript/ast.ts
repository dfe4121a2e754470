/** The tree numscript.peggy builds. Every node that can fail at run time carries its position. */

export interface Position {
  line: number;
  column: number;
}

export type Expression =
  | { type: 'variable'; name: string; loc: Position }
  | { type: 'asset'; value: string; loc: Position }
  | { type: 'string'; value: string; loc: Position }
  | { type: 'number'; value: bigint; loc: Position }
  | { type: 'percent'; numerator: bigint; denominator: bigint; loc: Position }
  | { type: 'account'; parts: Array<string | { variable: string }>; loc: Position }
  | { type: 'monetary'; asset: Expression; amount: Expression; loc: Position }
  | { type: 'binary'; op: '+' | '-' | '/'; left: Expression; right: Expression; loc: Position }
  | { type: 'negate'; operand: Expression; loc: Position }
  | { type: 'call'; name: string; args: Expression[]; loc: Position };

export type Source =
  | {
      type: 'account';
      address: Expression;
      color: Expression | null;
      overdraft: 'unbounded' | Expression | null;
      loc: Position;
    }
  /** `@acc with scaling through @swap` (experimental-asset-scaling). */
  | { type: 'scaling'; address: Expression; through: Expression; loc: Position }
  | { type: 'inorder'; sources: Source[]; loc: Position }
  | { type: 'oneof'; sources: Source[]; loc: Position }
  | {
      type: 'allotment';
      items: Array<{ portion: 'remaining' | Expression; from: Source }>;
      loc: Position;
    }
  | { type: 'capped'; cap: Expression; from: Source; loc: Position };

export type KeptOrDestination = { type: 'kept' } | { type: 'to'; destination: Destination };

export type Destination =
  | { type: 'account'; address: Expression; loc: Position }
  | {
      type: 'allotment';
      items: Array<{ portion: 'remaining' | Expression; to: KeptOrDestination }>;
      loc: Position;
    }
  | {
      type: 'inorder' | 'oneof';
      clauses: Array<{ cap: Expression; to: KeptOrDestination }>;
      remaining: KeptOrDestination;
      loc: Position;
    };

export type SentValue =
  | { kind: 'all'; asset: Expression; loc: Position }
  | { kind: 'amount'; value: Expression; loc: Position };

export type Statement =
  | { type: 'send'; sent: SentValue; source: Source; destination: Destination; loc: Position }
  | { type: 'save'; sent: SentValue; account: Expression; loc: Position }
  | { type: 'call'; name: string; args: Expression[]; loc: Position };

export interface VarDeclaration {
  typeName: string;
  name: string;
  origin: Expression | null;
  loc: Position;
}

export interface ProgramTree {
  features: string[];
  vars: VarDeclaration[];
  statements: Statement[];
}
