import type { Command } from 'commander';

export function registerHubspotSandboxCommand(parent: Command): void {
  void parent;
}
