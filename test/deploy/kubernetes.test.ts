/**
 * The Kubernetes manifests against each other and against src/config.ts: probes on the served port and
 * paths, every variable with exactly one home, selectors that select the pods, a kustomization that
 * lists exactly the manifests there are.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../src/config.js';
import { configKeys, deployDir, listFiles, readYamlDocuments, repoRoot } from './deploy-files.js';

interface Manifest {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [key: string]: unknown;
}

type Probe = { httpGet: { path: string; port: string | number } };
type Container = {
  image: string;
  ports: { name: string; containerPort: number }[];
  envFrom: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  startupProbe: Probe;
  livenessProbe: Probe;
  readinessProbe: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  resources: { requests: Record<string, string>; limits: Record<string, string> };
  securityContext: { readOnlyRootFilesystem?: boolean; allowPrivilegeEscalation?: boolean; runAsNonRoot?: boolean };
  volumeMounts: { name: string; mountPath: string }[];
};
type PodSpec = {
  terminationGracePeriodSeconds: number;
  securityContext: { runAsNonRoot?: boolean; runAsUser?: number };
  containers: Container[];
  volumes: { name: string; emptyDir?: object }[];
};

const dir = join(deployDir, 'kubernetes');
const kustomization = readYamlDocuments('deploy/kubernetes/kustomization.yaml')[0] as {
  resources: string[];
  images: { name: string }[];
  namespace?: string;
};
// Missing files are left to the kustomization test below, which names them.
const manifests = kustomization.resources
  .filter((r) => existsSync(join(dir, r)))
  .flatMap((r) => readYamlDocuments(`deploy/kubernetes/${r}`) as Manifest[]);
const one = <T>(kind: string) => {
  const found = manifests.filter((m) => m.kind === kind);
  if (found.length !== 1)
    throw new Error(`expected one ${kind} among the kustomization's resources, found ${found.length}`);
  return found[0] as unknown as T;
};

const deployment = one<
  Manifest & {
    spec: {
      replicas: number;
      selector: { matchLabels: Record<string, string> };
      template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
    };
  }
>('Deployment');
const configMap = one<Manifest & { data: Record<string, string> }>('ConfigMap');
const secret = one<Manifest & { stringData?: Record<string, string>; data?: Record<string, string> }>('Secret');
const service = one<
  Manifest & { spec: { selector: Record<string, string>; ports: { targetPort: string | number }[] } }
>('Service');
const pdb = one<Manifest & { spec: { selector: { matchLabels: Record<string, string> } } }>('PodDisruptionBudget');
const pod = deployment.spec.template.spec;
const container = pod.containers[0]!;
const podLabels = deployment.spec.template.metadata.labels;
const secretKeys = Object.keys({ ...secret.data, ...secret.stringData });

describe('kustomization.yaml', () => {
  it('lists files that exist, and every manifest in the folder', () => {
    for (const r of kustomization.resources) expect(existsSync(join(dir, r)), r).toBe(true);
    const manifestsThere = listFiles(dir)
      .map((f) => basename(f))
      .filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml');
    expect([...kustomization.resources].sort()).toEqual(manifestsThere.sort());
  });

  it('is namespace-agnostic', () => {
    expect(kustomization.namespace).toBeUndefined();
    expect(manifests.filter((m) => m.metadata.namespace !== undefined).map((m) => m.kind)).toEqual([]);
  });

  it('sets the image the Deployment runs', () => {
    expect(kustomization.images.map((i) => i.name)).toContain(container.image);
  });

  it.skipIf(!hasKubectl())('builds with kubectl kustomize', () => {
    const out = execFileSync('kubectl', ['kustomize', dir], { cwd: repoRoot, encoding: 'utf8' });
    expect(out).toMatch(/kind: Deployment/);
  });
});

describe('ConfigMap and Secret', () => {
  it('name only variables src/config.ts reads, each in one place, all of them together', () => {
    const inConfigMap = Object.keys(configMap.data);
    expect(inConfigMap.filter((k) => !configKeys.has(k))).toEqual([]);
    expect(secretKeys.filter((k) => !configKeys.has(k))).toEqual([]);
    expect(inConfigMap.filter((k) => secretKeys.includes(k))).toEqual([]);
    expect([...configKeys].filter((k) => !inConfigMap.includes(k) && !secretKeys.includes(k))).toEqual([]);
  });

  it('make a valid configuration as they stand', () => {
    const result = ConfigSchema.safeParse({ ...configMap.data, ...secret.stringData });
    expect(result.error?.issues ?? []).toEqual([]);
  });

  it('are what the Deployment reads its environment from', () => {
    expect(container.envFrom.map((e) => e.configMapRef?.name ?? e.secretRef?.name)).toEqual([
      configMap.metadata.name,
      secret.metadata.name,
    ]);
  });
});

describe('Deployment', () => {
  const port = container.ports[0]!;
  const isContainerPort = (p: string | number) => p === port.name || p === port.containerPort;

  it('runs 2 replicas of pods its selector selects', () => {
    expect(deployment.spec.replicas).toBe(2);
    expect(podLabels).toMatchObject(deployment.spec.selector.matchLabels);
  });

  it('listens on the PORT the ConfigMap gives the service', () => {
    expect(String(port.containerPort)).toBe(configMap.data.PORT);
  });

  it('probes /healthz for liveness and start-up and /readyz for readiness, on the container port', () => {
    expect(container.livenessProbe.httpGet.path).toBe('/healthz');
    expect(container.startupProbe.httpGet.path).toBe('/healthz');
    expect(container.readinessProbe.httpGet.path).toBe('/readyz');
    for (const probe of [container.livenessProbe, container.startupProbe, container.readinessProbe]) {
      expect(isContainerPort(probe.httpGet.port)).toBe(true);
    }
  });

  it('runs as non-root on a read-only root filesystem with writable emptyDir /tmp and data dir', () => {
    expect(pod.securityContext.runAsNonRoot ?? container.securityContext.runAsNonRoot).toBe(true);
    expect(pod.securityContext.runAsUser).toBeGreaterThan(0);
    expect(container.securityContext.readOnlyRootFilesystem).toBe(true);
    expect(container.securityContext.allowPrivilegeEscalation).toBe(false);
    const emptyDirs = new Set(pod.volumes.filter((v) => v.emptyDir).map((v) => v.name));
    const writable = container.volumeMounts.filter((m) => emptyDirs.has(m.name)).map((m) => m.mountPath);
    expect(writable).toContain('/tmp');
    expect(writable.some((w) => configMap.data.CRM_ENRICH_DATA_DIR!.startsWith(`${w}/`))).toBe(true);
  });

  it('gives graceful shutdown the preStop pause plus the shutdown deadline, with room to close connections', () => {
    const pause = Number(container.lifecycle?.preStop?.exec?.command.at(-1) ?? 0);
    const deadline = Number(configMap.data.CRM_ENRICH_SHUTDOWN_SECONDS);
    expect(deadline).toBeGreaterThan(0);
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(pause + deadline + 5);
    // Not much more: a pod that takes minutes to leave slows every rollout.
    expect(pod.terminationGracePeriodSeconds).toBeLessThanOrEqual(pause + deadline + 15);
  });

  it('declares resource requests and a memory limit', () => {
    expect(container.resources.requests).toMatchObject({ cpu: expect.any(String), memory: expect.any(String) });
    expect(container.resources.limits.memory).toBeDefined();
  });
});

describe('Service and PodDisruptionBudget', () => {
  it('select the Deployment pods and target the container port', () => {
    expect(podLabels).toMatchObject(service.spec.selector);
    expect(podLabels).toMatchObject(pdb.spec.selector.matchLabels);
    expect(service.spec.ports.map((p) => p.targetPort)).toEqual([container.ports[0]!.name]);
  });
});

function hasKubectl(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
