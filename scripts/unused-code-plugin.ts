/**
 * An esbuild plugin that leaves out code the functions never run but their libraries import anyway:
 *
 * - zod's locale files. `zod/v4` (pulled in by the AI SDK) re-exports every locale through its `locales` namespace,
 *   so tree-shaking keeps about 258 KB of them; zod itself imports English directly (`locales/en.js`), which stays.
 *   Nothing of ours calls `z.config(z.locales.xx())`.
 * - `@ai-sdk/gateway`, the provider `ai` falls back to when a model is given as a string id. Every model here is a
 *   provider object (`createOpenAICompatible`), so the stub's `isInstance` checks (run on every error) answer false
 *   and any other use throws a clear error instead of calling Vercel's gateway.
 *
 * If a library starts importing another name from either, esbuild fails the build ("No matching export"): a stub
 * can never silently stand in for code that is used.
 */
import type { Plugin } from 'esbuild';

const NAMESPACE = 'unused-code';

const GATEWAY_STUB = `
const notInBuild = () => {
  throw new Error('@ai-sdk/gateway is not part of this build: pass a model object, not a model id string');
};
class NotInBuild {
  static isInstance() {
    return false;
  }
}
export const GatewayError = NotInBuild;
export const GatewayAuthenticationError = NotInBuild;
export const createGateway = notInBuild;
export const gateway = new Proxy(notInBuild, { get: notInBuild, apply: notInBuild });
`;

/** Stubs zod's locale index and `@ai-sdk/gateway` (see the module comment). */
export function unusedCodePlugin(): Plugin {
  return {
    name: NAMESPACE,
    setup(build) {
      build.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
        /[\\/]node_modules[\\/]zod[\\/]/.test(args.importer)
          ? { path: 'zod-locales', namespace: NAMESPACE }
          : undefined,
      );
      build.onResolve({ filter: /^@ai-sdk\/gateway$/ }, () => ({ path: 'ai-sdk-gateway', namespace: NAMESPACE }));
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
        contents: args.path === 'ai-sdk-gateway' ? GATEWAY_STUB : 'export {};',
        loader: 'js',
      }));
    },
  };
}
