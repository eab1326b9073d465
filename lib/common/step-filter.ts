import type { FILTER_ON, FILTER_OPERATORS, FILTER_TYPES, FILTER_VALUES } from './enums';

/** One condition of a step filter or integration condition (`FieldFilterPartDto`). */
export interface FieldFilterPart {
  field: string;
  value: string;
  operator: (typeof FILTER_OPERATORS)[number];
  on: (typeof FILTER_ON)[number];
}

/** A group of conditions joined by AND/OR (`StepFilterDto`). */
export interface StepFilter {
  isNegated: boolean;
  type: (typeof FILTER_TYPES)[number];
  value: (typeof FILTER_VALUES)[number];
  children: FieldFilterPart[];
}
