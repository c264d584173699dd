// The form of one saved query, built from its listed parameters: an input
// labelled by the parameter's own name, a required mark, the allowed values
// as choices, the default shown, the parameters a scoped credential fixes
// filled and locked, and room beside each for its field violation.
import type { ListedEndpoint, ListedParameter } from "./listing.js";

export interface ParameterForm {
  /** The values as typed or chosen, every parameter present (empty when not given). */
  values(): Record<string, string>;
  /** Shows each violation beside its input (and clears the earlier ones); returns those naming no input. */
  showViolations(
    violations: readonly { field: string; description: string }[],
  ): { field: string; description: string }[];
}

/** Fills `fieldset` with the inputs of `endpoint`, starting from `initial` values. */
export function buildParameterForm(
  fieldset: HTMLFieldSetElement,
  endpoint: ListedEndpoint,
  initial: Record<string, string>,
): ParameterForm {
  for (const child of [...fieldset.children]) if (child.tagName !== "LEGEND") child.remove();
  const inputs = new Map<string, { input: HTMLInputElement | HTMLSelectElement; error: HTMLElement }>();
  for (const parameter of endpoint.parameters) {
    const fixed = endpoint.fixed_parameters?.[parameter.name];
    const row = element("div", "field");
    const label = element("label");
    const id = `parameter-${parameter.name}`;
    label.htmlFor = id;
    label.textContent = parameter.name;
    const name = element("div", "name");
    name.append(label);
    // Seen, not read out: the input's required state says it to assistive technology.
    if (parameter.required) {
      const mark = element("span", "required");
      mark.textContent = "*";
      mark.title = "required";
      mark.setAttribute("aria-hidden", "true");
      name.append(mark);
    }
    row.append(name);
    const input = parameter.allowed_values.length > 0 ? choiceOf(parameter, fixed) : textOf(parameter);
    input.id = id;
    input.name = parameter.name;
    input.required = parameter.required;
    input.value = fixed ?? initial[parameter.name] ?? "";
    if (fixed !== undefined) lock(input, row);
    const error = element("p", "violation");
    error.id = `${id}-error`;
    error.hidden = true;
    input.setAttribute("aria-describedby", error.id);
    row.append(input, hintOf(parameter, fixed), error);
    fieldset.append(row);
    inputs.set(parameter.name, { input, error });
  }
  return {
    values: () => Object.fromEntries([...inputs].map(([name, { input }]) => [name, input.value])),
    showViolations(violations) {
      for (const { input, error } of inputs.values()) {
        input.removeAttribute("aria-invalid");
        error.hidden = true;
        error.textContent = "";
      }
      const elsewhere: { field: string; description: string }[] = [];
      for (const violation of violations) {
        const target = inputs.get(violation.field);
        if (target === undefined) {
          elsewhere.push(violation);
          continue;
        }
        target.input.setAttribute("aria-invalid", "true");
        target.error.hidden = false;
        target.error.textContent =
          target.error.textContent === ""
            ? violation.description
            : `${target.error.textContent}; ${violation.description}`;
      }
      return elsewhere;
    },
  };
}

function choiceOf(parameter: ListedParameter, fixed: string | undefined): HTMLSelectElement {
  const select = element("select");
  // A fixed value outside the allowed ones (the service takes its default for it) is still shown as it is sent.
  if (fixed !== undefined && !parameter.allowed_values.includes(fixed)) select.append(new Option(fixed, fixed));
  // Not choosing is a choice when the parameter may be left out: the service then takes its default.
  if (!parameter.required)
    select.append(new Option(parameter.default === null ? "(none)" : `(default: ${parameter.default})`, ""));
  for (const value of parameter.allowed_values) select.append(new Option(value, value));
  return select;
}

function textOf(parameter: ListedParameter): HTMLInputElement {
  const input = element("input");
  input.type = "text";
  input.spellcheck = false;
  input.autocomplete = "off";
  input.maxLength = parameter.max_length;
  if (parameter.default !== null) input.placeholder = parameter.default;
  return input;
}

function hintOf(parameter: ListedParameter, fixed: string | undefined): HTMLElement {
  const hint = element("span", "hint");
  const parts = [parameter.required ? "required" : "optional"];
  if (parameter.default !== null) parts.push(`default ${parameter.default}`);
  if (fixed !== undefined) parts.push("fixed by your credential");
  hint.textContent = parts.join(", ");
  return hint;
}

/** A fixed parameter: shown, sent, not changeable. */
function lock(input: HTMLInputElement | HTMLSelectElement, row: HTMLElement): void {
  if (input instanceof HTMLInputElement) input.readOnly = true;
  else {
    // A select has no read-only state: every other choice is disabled instead, so its value still reads.
    for (const option of input.options) option.disabled = option.value !== input.value;
  }
  input.setAttribute("aria-readonly", "true");
  row.classList.add("fixed");
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, className?: string): HTMLElementTagNameMap[K] {
  const created = document.createElement(tag);
  if (className !== undefined) created.className = className;
  return created;
}
