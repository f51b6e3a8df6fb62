#!/usr/bin/env node
/**
 * The crm-enrich command line. Each area registers its own commands; heavy modules load lazily
 * inside the actions, so `crm-enrich --help` stays fast.
 */
import { Command } from 'commander';
import { registerPartnerSandboxCommand } from './partner/sandbox/command.js';
import { registerHubspotSandboxCommand } from '../connectors/hubspot/sandbox/command.js';
import { registerSalesforceSandboxCommand } from '../connectors/salesforce/sandbox/command.js';
import { registerStoreCommands } from './cli/store-commands.js';
import { registerMappingCommands } from './cli/mapping-commands.js';
import { registerServiceCommands } from './cli/service-commands.js';
import { registerHubspotAppCommand } from '../connectors/hubspot/app-project-command.js';
import { registerJobChangeCommands } from './cli/job-changes-command.js';

const program = new Command('crm-enrich')
  .description('Keeps HubSpot and Salesforce records filled in with data from the sales-intelligence partner API.')
  .showHelpAfterError();

const sandbox = program.command('sandbox').description('run a local, wire-faithful stand-in for an outside service');
registerPartnerSandboxCommand(sandbox);
registerHubspotSandboxCommand(sandbox);
registerSalesforceSandboxCommand(sandbox);
registerStoreCommands(program);
registerMappingCommands(program);
registerServiceCommands(program);
registerHubspotAppCommand(program);
registerJobChangeCommands(program);

await program.parseAsync(process.argv);
