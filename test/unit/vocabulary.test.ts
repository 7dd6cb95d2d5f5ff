import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { AUTOMATION_NODE_KINDS } from '../../src/model/automation/graph';
import { MEMORY_NODE_KINDS } from '../../src/model/memory/node';
import { GraphNode } from '../../src/contract/families/automation';
import { NodeKindEnum } from '../../src/contract/families/memory-schemas';

/**
 * One vocabulary (docs/design.md, "Where a change goes"): every enum is a `const` list in
 * src/model and the contract builds its schemas from it (`z.enum(REPLAY_RUN_STATUSES)`). A list of
 * literals written in the contract — `z.enum(['a', 'b'])`, `.extract(['a'])`, a union of string
 * literals, or a `['a', 'b'] as const` the contract exports or hands to z.enum — would be a second copy of a value the model owns, so this
 * test reads the contract's syntax trees and names each one by file and line.
 */

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONTRACT = join(ROOT, 'src', 'contract');

const ENUM_METHODS = new Set(['enum', 'extract', 'exclude']);
const isStringLiteral = (n: ts.Node) => ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n);
const isStringLiteralCall = (n: ts.Node, method: string) =>
  ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === method && n.arguments.length > 0 && isStringLiteral(n.arguments[0]!);

/** The expression without `as …`, `satisfies …` and parentheses around it. */
const bare = (n: ts.Expression | undefined): ts.Expression | undefined => {
  while (n && (ts.isAsExpression(n) || ts.isSatisfiesExpression(n) || ts.isParenthesizedExpression(n))) n = n.expression;
  return n;
};
const stringList = (e: ts.Expression | undefined): ts.ArrayLiteralExpression | null => {
  const n = bare(e);
  return n && ts.isArrayLiteralExpression(n) && n.elements.some(isStringLiteral) ? n : null;
};
const isExported = (d: ts.VariableDeclaration) =>
  ts.isVariableDeclarationList(d.parent) && ts.isVariableStatement(d.parent.parent) && (d.parent.parent.modifiers ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);

/**
 * Each literal enum list in a source file, as `<file>:<line>: <code>`: a list of string literals
 * given to z.enum / .extract / .exclude (or an object to z.enum), a union of two or more string
 * literals, and a list of string literals declared here that is exported or given to z.enum by name.
 */
function literalEnumLists(source: string, fileName: string): string[] {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: { pos: number; text: string }[] = [];
  const report = (at: ts.Node, shown: ts.Node) => found.push({ pos: at.getStart(sf), text: shown.getText(sf).replace(/\s+/g, ' ').slice(0, 100) });
  const lists = new Map<string, ts.VariableDeclaration>();
  const enumArgs = new Set<string>();
  const visit = (n: ts.Node) => {
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression)) {
      const method = n.expression.name;
      const first = n.arguments[0];
      const named = bare(first);
      if (ENUM_METHODS.has(method.text) && named && ts.isIdentifier(named)) enumArgs.add(named.text);
      // z.enum(['a', 'b']), schema.extract(['a']), z.enum({ a: 'a' })
      if (ENUM_METHODS.has(method.text) && first && (stringList(first) || (method.text === 'enum' && ts.isObjectLiteralExpression(first)))) report(method, n);
      // z.union([z.literal('a'), z.literal('b')]): an enum in other words
      else if (method.text === 'union' && first && ts.isArrayLiteralExpression(first) && first.elements.filter((e) => isStringLiteralCall(e, 'literal')).length >= 2)
        report(method, n);
    }
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && stringList(n.initializer)) lists.set(n.name.text, n);
    ts.forEachChild(n, visit);
  };
  visit(sf);
  // const STATUSES = ['a', 'b'] as const, exported or given to z.enum: a vocabulary list declared in the contract
  for (const [name, d] of lists) if (isExported(d) || enumArgs.has(name)) report(d, d);
  return found.sort((a, b) => a.pos - b.pos).map((f) => `${fileName}:${sf.getLineAndCharacterOfPosition(f.pos).line + 1}: ${f.text}`);
}

function tsFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...tsFiles(p));
    else if (entry.name.endsWith('.ts')) out.push(p);
  }
  return out.sort();
}

describe('one vocabulary', () => {
  it('the contract writes no literal enum list: its enums are built from src/model', () => {
    const files = tsFiles(CONTRACT);
    assert.ok(files.length > 10, `found the contract's files (${files.length})`);
    const found = files.flatMap((f) => literalEnumLists(readFileSync(f, 'utf8'), relative(ROOT, f)));
    assert.deepEqual(found, [], 'define the list once in src/model/<family>/ (a `const` list and its type) and build the schema from it: z.enum(THE_LIST)');
  });

  it('finds each form of a literal list, by file and line, and lets model lists, single literals and comments be', () => {
    const snippet = [
      "import { z } from 'zod';",
      "import { RUN_STATUSES } from '../../model/x';",
      "const A = z.enum(['queued', 'running']);",
      'const B = z',
      '  .enum([',
      "    'multi',",
      "    'line',",
      '  ])',
      "  .describe('chained');",
      "const C = A.extract(['queued']);",
      "const D = z.union([z.literal('one'), z.literal('two')]);",
      "export const E = ['x', 'y'] as const;",
      "const F = z.enum({ a: 'a', b: 'b' });",
      "const LOCAL = ['p', 'q'];",
      'const J = z.enum(LOCAL as [string, ...string[]]);',
      '// fine: built from the model, a single tag, numbers, a comment, a string, and local lists that are no enum',
      'const G = z.enum(RUN_STATUSES);',
      "const H = z.object({ format: z.literal('lore.pack'), version: z.union([z.literal(1), z.literal(2)]) });",
      "// z.enum(['in', 'a', 'comment'])",
      "const I = \"z.enum(['in', 'a', 'string'])\";",
      "const runErrors = ['not_found', 'conflict'] as const;",
      "for (const k of ['innerType', 'element'] as const) void k;",
    ].join('\n');
    const found = literalEnumLists(snippet, 'src/contract/families/example.ts');
    assert.deepEqual(
      found.map((f) => f.split(': ')[0]),
      [3, 5, 10, 11, 12, 13, 14].map((line) => `src/contract/families/example.ts:${line}`),
      found.join('\n'),
    );
    assert.match(found[0]!, /z\.enum\(\['queued', 'running'\]\)/, 'the finding quotes the code');
  });

  it('the contract publishes the model lists: automation node kinds and memory node kinds, two lists under two names', () => {
    assert.deepEqual(GraphNode.shape.kind.options, [...AUTOMATION_NODE_KINDS]);
    assert.deepEqual(NodeKindEnum.options, [...MEMORY_NODE_KINDS]);
    assert.equal(
      AUTOMATION_NODE_KINDS.some((k) => (MEMORY_NODE_KINDS as readonly string[]).includes(k)),
      false,
    );
  });
});
