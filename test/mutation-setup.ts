/**
 * Setup of the mutation runs only (vitest.mutation.config.ts): every fast-check property stops after
 * 60 ms (counted as passed). Stryker runs the tests once per mutant, so the thousands of generated
 * cases of `npm test` would make a run last hours; 60 ms still gives each property some dozens of cases.
 */
import fc from "fast-check";

fc.configureGlobal({ ...fc.readConfigureGlobal(), interruptAfterTimeLimit: 60, markInterruptAsFailure: false });
