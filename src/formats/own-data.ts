/** Reading and writing plain data in the formats module: own data properties only, getters never run. */
import { MISSING, readOwnData } from "../resolve/access.js";

/** An own data property, or undefined (a getter or an inherited member counts as missing). May throw (a Proxy trap): callers guard. */
export function own(target: object, key: string): unknown {
  const value = readOwnData(target, key);
  return value === MISSING ? undefined : value;
}

/** Set an own data property, whatever its name (`__proto__` included). */
export function defineOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}
