/* Follow-the-field's inputs: the fields an agent may follow, checked and
 * reduced to what the kernels read (the shared grid, the fields). The
 * direction rule itself is the reference's (reference.c). */
#include "internal.h"
#include "nav/field.h"

/* Whether two built fields have the same grid (cells map to cells). */
static int same_grid(const crowdsteer_field *a, const crowdsteer_field *b) {
  return a->origin[0] == b->origin[0] && a->origin[1] == b->origin[1] &&
         a->cell_size == b->cell_size && a->width == b->width && a->height == b->height;
}

crowdsteer_status cs_resolve_field(cs_inputs *in, const crowdsteer_field_follow *follow,
                                   size_t begin, size_t end) {
  if (!follow || !follow->fields) return CROWDSTEER_ERROR_NULL_POINTER;
  if (in->dims != 2) return CROWDSTEER_ERROR_DIMS;
  if (follow->field_count == 0 || follow->field_count > UINT32_MAX)
    return CROWDSTEER_ERROR_PARAMETER;
  for (size_t k = 0; k < follow->field_count; k++) {
    if (!follow->fields[k]) return CROWDSTEER_ERROR_NULL_POINTER;
    if (!follow->fields[k]->built) return CROWDSTEER_ERROR_GRID;
    if (!same_grid(follow->fields[0], follow->fields[k]))
      return CROWDSTEER_ERROR_PARAMETER;
  }
  /* (validation.c's cs_aligned calls this file: not called back.) */
  if (follow->field_index && begin < end &&
      (uintptr_t)follow->field_index % sizeof(uint32_t) != 0)
    return CROWDSTEER_ERROR_ALIGNMENT;
  if (!follow->field_index && follow->field >= follow->field_count)
    return CROWDSTEER_ERROR_PARAMETER;
  const crowdsteer_field *grid = follow->fields[0];
  /* A uniform field is the first and only one the kernels see. */
  in->fields = follow->field_index ? follow->fields : follow->fields + follow->field;
  in->field_index = follow->field_index;
  in->field_count = (uint32_t)follow->field_count;
  in->field_width = grid->width;
  in->field_cells = (uint32_t)grid->cells;
  in->field_origin[0] = grid->origin[0];
  in->field_origin[1] = grid->origin[1];
  in->field_inverse_cell_size = grid->inverse_cell_size;
  in->field_width_f = grid->width_f;
  in->field_height_f = grid->height_f;
  in->gather_instruction = cs_gather_instruction_pays();
  return CROWDSTEER_OK;
}
