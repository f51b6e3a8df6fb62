// @ts-check
// ESLint: typescript-eslint's type-checked recommended rules over every TypeScript file, and the import
// boundaries between folders (docs/code-map.md). Formatting is Prettier's alone (eslint-config-prettier, last),
// except the length of lines Prettier does not break (strings, comments): @stylistic/max-len.
import js from '@eslint/js';
import stylistic from '@stylistic/eslint-plugin';
import prettier from 'eslint-config-prettier';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// Which folder may import which. Each entry forbids imports whose path, as written, reaches one of the
// named folders; paths are relative, so `(../)+` stands for "from any depth". src/config.ts and
// src/logger.ts are root modules every floor may use (they import only src/core).
const folders = (/** @type {string[]} */ names) => `^(\\.\\./)+(src/)?(${names.join('|')})/`;
const rootModules = (/** @type {string[]} */ names) => `^(\\.\\./)+(src/)?(${names.join('|')})\\.js$`;
/** @typedef {[regex: string, message: string]} Forbidden */
/** @type {Forbidden} */
const SANDBOX = [
  '(^|/)sandbox/',
  'production code never imports a sandbox; only the CLI (src/cli), tests and benches start them',
];
/** @type {Forbidden} */
const APP = [folders(['app']), 'only the CLI, tests and benches import the composition root (src/app)'];
/** @type {Forbidden} */
const CLI = [`${folders(['cli'])}|${rootModules(['cli'])}`, 'nothing imports the CLI'];
/** @type {Forbidden} */
const CONNECTOR = [
  '^(\\.\\./)+connectors/',
  'the engine never imports a connector by name: it uses src/core/connector.ts',
];
const only = (/** @type {string} */ what, /** @type {string} */ allowed) => `${what} imports only ${allowed}`;
const SRC_FOLDERS = ['core', 'auth', 'limits', 'store', 'partner', 'mapping', 'enrich', 'discovery', 'server', 'mcp'];
const everythingBut = (/** @type {string[]} */ allowed) =>
  folders([...SRC_FOLDERS, 'service', 'app', 'cli'].filter((name) => !allowed.includes(name)));

/**
 * One config object per folder; ESLint replaces (does not merge) a rule's options when two objects match
 * one file, so each object lists every boundary for its files. Dynamic `import()` is checked by the same
 * expressions through no-restricted-syntax.
 * @param {string[]} files
 * @param {Forbidden[]} forbidden
 */
const boundary = (files, forbidden) => ({
  files,
  rules: {
    'no-restricted-imports': ['error', { patterns: forbidden.map(([regex, message]) => ({ regex, message })) }],
    'no-restricted-syntax': [
      'error',
      ...forbidden.map(([regex, message]) => ({
        selector: `ImportExpression > Literal[value=/${regex.replaceAll('/', '\\/')}/]`,
        message,
      })),
    ],
  },
});

// eslint-config-prettier switches off every rule that may fight Prettier, @stylistic/max-len among them (Prettier
// can leave a line longer than its width); it stays on here, at Prettier's width, for the lines Prettier leaves.
const prettierRules = Object.fromEntries(
  Object.entries(prettier.rules).filter(([rule]) => rule !== '@stylistic/max-len'),
);

export default defineConfig(
  // deploy/ holds other tools' projects (the HubSpot card is built and checked by HubSpot's CLI).
  globalIgnores(['dist/', '.data/', 'coverage/', 'mappings/', 'deploy/']),
  js.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: {
        projectService: {
          // The record card's test is checked by its own tsconfig (React's types; see tsconfig.json).
          allowDefaultProject: ['test/hubspot/app-card.test.ts'],
          defaultProject: 'tsconfig.hubspot-card.json',
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // `_`-prefixed names are deliberate: Express tells error handlers by their four parameters, and
      // `{ omitted: _, ...rest }` drops a field from a copy.
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
      // An `async` function without `await` is how a method keeps a Promise-returning contract (close(),
      // health checks, route handlers) and turns a throw into a rejection.
      '@typescript-eslint/require-await': 'off',
      // `let x; ... callback reading x ...; x = ...` is how a callback refers to what it is passed to
      // before that exists; `const` would throw if the callback ran first.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    files: ['**/sandbox/**/*.ts'],
    // A sandbox reads a request's JSON values as text with String() before checking them, whatever
    // their JSON type; a client that sends an object gets "[object Object]" checked like any text.
    rules: { '@typescript-eslint/no-base-to-string': 'off' },
  },
  {
    files: ['test/**/*.ts', 'test/**/*.tsx'],
    // Tests read documents (JSON answers, XML, YAML, a parser's output) untyped on purpose and check
    // their shape with expect: an untyped read there fails a test, not the service.
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    files: ['test/hubspot/app-card.test.ts'],
    // HubSpot's createRenderer() hands back functions that are meant to be destructured (its docs do).
    rules: { '@typescript-eslint/unbound-method': 'off' },
  },
  {
    // Prettier wraps code at 120 characters but not strings, template literals or comments: those are wrapped
    // by hand. A URL or a regular expression literal stays whole.
    files: ['{src,connectors,test,bench,bin}/**/*.{ts,tsx,js}', '*.{js,ts}'],
    plugins: { '@stylistic': stylistic },
    rules: { '@stylistic/max-len': ['error', { code: 120, ignoreUrls: true, ignoreRegExpLiterals: true }] },
  },
  { files: ['bin/**/*.js', 'eslint.config.js'], languageOptions: { globals: globals.node } },
  { files: ['src/server/admin-page/public/**/*.js'], languageOptions: { globals: globals.browser } },

  boundary(
    ['src/config.ts', 'src/logger.ts'],
    [[`^\\./(?!core/)`, only('a root module (config, logger)', 'src/core')], SANDBOX],
  ),
  boundary(['src/core/**'], [['^\\.\\./', 'src/core imports nothing outside itself']]),
  boundary(
    ['src/limits/**'],
    [[`${everythingBut(['core'])}|${rootModules(['config', 'logger'])}`, only('src/limits', 'src/core')], CONNECTOR],
  ),
  boundary(
    ['src/store/**'],
    [[everythingBut(['core']), only('src/store', 'src/core and the root modules')], CONNECTOR, SANDBOX],
  ),
  boundary(
    ['src/partner/**'],
    [
      [everythingBut(['core', 'limits']), only('src/partner', 'src/core, src/limits and the root modules')],
      CONNECTOR,
      SANDBOX,
    ],
  ),
  boundary(
    ['src/partner/sandbox/**'],
    [
      [
        everythingBut(['core', 'limits']),
        only('the partner sandbox', 'src/partner, src/core, src/limits and the root modules'),
      ],
      CONNECTOR,
    ],
  ),
  boundary(
    ['src/mapping/**'],
    [
      [
        folders(['enrich', 'discovery', 'server', 'mcp', 'service']),
        only('src/mapping', 'lower floors: never the engine, discovery, HTTP, MCP or the service'),
      ],
      APP,
      CLI,
      CONNECTOR,
      SANDBOX,
    ],
  ),
  boundary(
    ['src/enrich/**'],
    [
      [
        folders(['discovery', 'server', 'mcp', 'service']),
        only('src/enrich', 'mapping, partner, limits, store and core: never discovery, HTTP, MCP or the service'),
      ],
      APP,
      CLI,
      CONNECTOR,
      SANDBOX,
    ],
  ),
  boundary(
    ['src/discovery/**'],
    [
      [folders(['server', 'mcp']), only('src/discovery', 'the engine and lower floors: never HTTP or MCP')],
      APP,
      CLI,
      SANDBOX,
    ],
  ),
  boundary(
    ['src/server/**', 'src/mcp/**', 'src/service/**'],
    [
      APP,
      CLI,
      SANDBOX,
      [
        '^(\\.\\./)+connectors/',
        'HTTP, MCP and the service name no CRM: connectors and their entry points reach them through src/core',
      ],
    ],
  ),
  boundary(['src/app/**'], [CLI, SANDBOX]),
  boundary(
    ['connectors/sandbox/**'],
    [
      [everythingBut(['core']), "the CRM sandboxes' shared parts import only src/core"],
      ['^(\\.\\./)+(connectors/)?(hubspot|salesforce)/', "the CRM sandboxes' shared parts import no connector"],
    ],
  ),
  ...['hubspot', 'salesforce']
    .map((crm) => {
      const other = crm === 'hubspot' ? 'salesforce' : 'hubspot';
      /** @type {Forbidden[]} */
      const forbidden = [
        [everythingBut(['core', 'limits']), 'a connector imports only src/core, src/limits and the root modules'],
        [`^(\\.\\./)+(connectors/)?${other}/`, 'one connector never imports another'],
      ];
      return [
        boundary([`connectors/${crm}/**`], [...forbidden, SANDBOX]),
        boundary([`connectors/${crm}/sandbox/**`], forbidden),
      ];
    })
    .flat(),

  { ...prettier, rules: prettierRules },
);
