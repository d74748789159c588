/**
 * `build`'s value, built on the first call: for a settings schema only some functions parse with. NOTE: call it as
 * `/* @__PURE__ *\/ builtOnce(...)` at module level, so a function that never asks for it does not even keep it.
 */
export function builtOnce<T>(build: () => T): () => T {
  let value: { built: T } | undefined;
  return () => {
    value ??= { built: build() };
    return value.built;
  };
}
