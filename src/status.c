/* The human-readable text of each status code (used by the dispatcher's
 * warning too, so it lives below every other part of the library). */
#include "crowdsteer.h"

const char *crowdsteer_status_string(crowdsteer_status status) {
  switch (status) {
  case CROWDSTEER_OK: return "success";
  case CROWDSTEER_ERROR_NULL_POINTER: return "a required pointer is NULL";
  case CROWDSTEER_ERROR_DIMS: return "dims must be 2 or 3";
  case CROWDSTEER_ERROR_RANGE: return "range must satisfy begin <= end <= count";
  case CROWDSTEER_ERROR_PARAMETER:
    return "a parameter is NaN, out of range, or an unknown enum value";
  case CROWDSTEER_ERROR_AGENT_INDEX: return "a target agent index is not below count";
  case CROWDSTEER_ERROR_ALIGNMENT:
    return "an array the call uses is not aligned to 4 bytes";
  case CROWDSTEER_ERROR_OVERLAP:
    return "an array the call writes overlaps another array it reads or writes";
  case CROWDSTEER_ERROR_UNKNOWN_ISA: return "unknown instruction set";
  case CROWDSTEER_ERROR_UNSUPPORTED_ISA:
    return "instruction set not compiled in or not supported by this CPU";
  case CROWDSTEER_ERROR_OUT_OF_MEMORY: return "out of memory";
  case CROWDSTEER_ERROR_GRID:
    return "the neighbour grid is not built for these agents (count or dims), or the "
           "obstacle set is not built";
  case CROWDSTEER_ERROR_GEOMETRY:
    return "an obstacle is not a simple counter-clockwise loop (or has a zero-length "
           "edge)";
  case CROWDSTEER_ERROR_GOAL:
    return "a navigation field's goal point is in a blocked cell, or it has no free goal "
           "cell";
  }
  return "unknown status";
}
