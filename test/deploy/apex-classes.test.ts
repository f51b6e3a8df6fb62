/**
 * The Apex classes of deploy/salesforce, parsed with the grammar of @apexdevtools/apex-parser (which
 * aims to match the platform compiler) rather than searched with regular expressions: a syntax error
 * fails here, before an admin's `sf project deploy start` would, and the classes, methods and their
 * annotations are read from the parse tree.
 */
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  ApexErrorListener,
  ApexParserBaseListener,
  ApexParserFactory,
  ApexParseTreeWalker,
  type ClassDeclarationContext,
  type MethodDeclarationContext,
  type ApexParserRuleContext,
} from '@apexdevtools/apex-parser';
import { describe, expect, it } from 'vitest';
import { readText, repoRoot } from './deploy-files.js';

const classesDir = join(repoRoot, 'deploy/salesforce/force-app/main/default/classes');

class CollectErrors extends ApexErrorListener {
  readonly errors: string[] = [];
  apexSyntaxError(line: number, column: number, message: string): void {
    this.errors.push(`${line}:${column} ${message}`);
  }
}

interface Outline {
  errors: string[];
  /** Every class, nested ones as Outer.Inner, with its annotations. */
  classes: Record<string, string[]>;
  /** Every method as Class.method, with its annotations. */
  methods: Record<string, string[]>;
}

/** The annotations (lower-cased, as Apex ignores case) of the class body declaration holding `ctx`. */
function annotationsOf(ctx: ApexParserRuleContext): string[] {
  type Modifier = { annotation(): { id(): { getText(): string } } | null };
  let node: ApexParserRuleContext | undefined = ctx;
  while (node && !('modifier_list' in node)) node = node.parentCtx;
  const modifiers = node ? (node as unknown as { modifier_list(): Modifier[] }).modifier_list() : [];
  return modifiers.flatMap((m) => {
    const annotation = m.annotation();
    return annotation ? [annotation.id().getText().toLowerCase()] : [];
  });
}

function outline(source: string): Outline {
  const listener = new CollectErrors();
  const { parser } = ApexParserFactory.createLexerAndParser(source, listener);
  const tree = parser.compilationUnit();
  const result: Outline = { errors: listener.errors, classes: {}, methods: {} };
  const open: string[] = [];
  class Walk extends ApexParserBaseListener {
    enterClassDeclaration(ctx: ClassDeclarationContext): void {
      open.push(ctx.id().getText());
      result.classes[open.join('.')] = annotationsOf(ctx);
    }
    exitClassDeclaration(): void {
      open.pop();
    }
    enterMethodDeclaration(ctx: MethodDeclarationContext): void {
      result.methods[`${open.join('.')}.${ctx.id().getText()}`] = annotationsOf(ctx);
    }
  }
  ApexParseTreeWalker.DEFAULT.walk(new Walk(), tree);
  return result;
}

const classFiles = readdirSync(classesDir)
  .filter((f) => f.endsWith('.cls'))
  .sort();

describe('the Apex classes of deploy/salesforce, parsed', () => {
  it('finds the classes to parse', () => {
    expect(classFiles).toEqual(['CrmEnrichAction.cls', 'CrmEnrichActionTest.cls']);
  });

  it.each(classFiles)('%s parses without a syntax error', (file) => {
    const { errors } = outline(readText(relative(repoRoot, join(classesDir, file))));
    expect(errors).toEqual([]);
  });

  it('holds the invocable action, its request and result types, and its helpers', () => {
    const { classes, methods } = outline(
      readText('deploy/salesforce/force-app/main/default/classes/CrmEnrichAction.cls'),
    );
    expect(Object.keys(classes)).toEqual([
      'CrmEnrichAction',
      'CrmEnrichAction.Request',
      'CrmEnrichAction.Result',
      'CrmEnrichAction.CrmEnrichException',
    ]);
    expect(methods).toEqual({
      'CrmEnrichAction.enrich': ['invocablemethod'],
      'CrmEnrichAction.send': [],
      'CrmEnrichAction.resultsOf': [],
      'CrmEnrichAction.failed': [],
      // The header formula Salesforce evaluates at the callout, with the credential's secret (HMAC-SHA256).
      'CrmEnrichAction.signatureFormula': ['testvisible'],
    });
  });

  it('holds a test class whose test methods are each marked @IsTest, with a callout mock', () => {
    const { classes, methods } = outline(
      readText('deploy/salesforce/force-app/main/default/classes/CrmEnrichActionTest.cls'),
    );
    expect(classes).toEqual({ CrmEnrichActionTest: ['istest'], 'CrmEnrichActionTest.CrmEnrichMock': [] });
    const tests = Object.entries(methods).filter(([, annotations]) => annotations.includes('istest'));
    expect(tests.map(([name]) => name)).toEqual([
      'CrmEnrichActionTest.postsTheRecordsThroughTheNamedCredentialAndReturnsEachOutcome',
      'CrmEnrichActionTest.sendsAtMostTwoHundredRecordsPerCallout',
      'CrmEnrichActionTest.failsTheFlowWhenCrmEnrichRefusesTheCall',
      'CrmEnrichActionTest.reportsFailedForARecordWithoutAnAnswer',
    ]);
    expect(methods).toHaveProperty(['CrmEnrichActionTest.CrmEnrichMock.respond']);
  });

  it('reports a syntax error in a class, with its line', () => {
    const source = readText('deploy/salesforce/force-app/main/default/classes/CrmEnrichAction.cls');
    // A statement missing its semicolon, as a hand edit might leave it.
    const broken = source.replace(
      'Map<Id, Result> byId = new Map<Id, Result>();',
      'Map<Id, Result> byId = new Map<Id, Result>()',
    );
    expect(broken).not.toBe(source);
    const { errors } = outline(broken);
    expect(errors.length).toBeGreaterThan(0);
    expect(errors[0]).toMatch(/^\d+:\d+ /);
  });
});
