/**
 * Setup of the mutation runs only (vitest.mutation.config.ts): every fast-check property stops after
 * 20 ms (counted as passed). Stryker runs the tests once per mutant, so the thousands of generated
 * cases of `npm test` would make a run last hours; 20 ms still gives each property a dozen or more cases.
 */
import fc from "fast-check";

fc.configureGlobal({ ...fc.readConfigureGlobal(), interruptAfterTimeLimit: 20, markInterruptAsFailure: false });
