/**
 * Setup of the mutation runs only (vitest.mutation.config.ts): every fast-check property stops after
 * 100 ms (counted as passed; fast-check fails a property stopped before its first case, and one case of
 * runPlan or of the linter with a catalog can take tens of milliseconds). Stryker runs the tests once per mutant, so the thousands of generated
 * cases of `npm test` would make a run last hours; 100 ms still gives each property a few cases at least.
 */
import fc from "fast-check";

fc.configureGlobal({ ...fc.readConfigureGlobal(), interruptAfterTimeLimit: 100, markInterruptAsFailure: false });
