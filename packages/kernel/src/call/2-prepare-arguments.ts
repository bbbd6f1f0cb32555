import { errorMessage } from '@airlock/toolkit/util';
import { argumentsNotJson, argumentsUnreadable } from '../wording.js';
import type { CallState } from '../state/call-state.js';
import { stop } from '../state/call-state.js';

/**
 * Stage 2: the tool's compatibility shim (old argument shapes, JSON sent as a string) runs on the
 * raw arguments, before validation. It returns what is validated next; if it throws, the call is
 * `invalid`. The raw arguments are never changed in place: the shim gets a copy.
 */
export function prepareArguments(state: CallState): unknown {
  let raw = state.call.arguments;
  // Some providers hand over the arguments as the JSON text the model streamed.
  if (typeof raw === 'string') {
    try {
      raw = raw.trim() === '' ? {} : JSON.parse(raw);
    } catch (error) {
      stop(state, 'invalid', argumentsNotJson(state.call.name, errorMessage(error), state.call.arguments));
      return undefined;
    }
  }
  const shim = state.tool!.tool.prepareArguments;
  if (shim === undefined) return raw;
  try {
    return shim(raw === state.call.arguments ? structuredCloneSafe(raw) : raw);
  } catch (error) {
    stop(state, 'invalid', argumentsUnreadable(state.call.name, errorMessage(error), state.call.arguments));
    return undefined;
  }
}

function structuredCloneSafe(value: unknown): unknown {
  try {
    return structuredClone(value);
  } catch {
    return value;
  }
}
