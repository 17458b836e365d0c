/* The documents' tables of who reads what (docs/behaviours.md §3 and §8,
 * docs/guarantees.md's parameter table) against the library's own table of
 * behaviours (src/behaviours.c: crowdsteer_behaviour_inputs and the
 * parameter bits), so that no statement of them can drift from the code. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../src/internal.h"
#include "../common/check.h"

/* Where each parameter field's bit is, and whether the integrator reads it
 * (cs_prepare_integrator: max_speed, max_force, mass, dt). */
typedef struct field {
  const char *name;
  unsigned uses; /* CS_USES_* */
  int integrator;
} field;

static const field fields[] = {{"max_speed", CS_USES_MAX_SPEED, 1},
                               {"time_to_target", CS_USES_TIME_TO_TARGET, 0},
                               {"target_radius", CS_USES_ARRIVE_RADII, 0},
                               {"slowing_radius", CS_USES_ARRIVE_RADII, 0},
                               {"panic_radius", CS_USES_PANIC_RADIUS, 0},
                               {"danger_radius", CS_USES_LEAVE_RADII, 0},
                               {"escape_radius", CS_USES_LEAVE_RADII, 0},
                               {"max_prediction", CS_USES_PREDICTION, 0},
                               {"wander_radius", CS_USES_WANDER, 0},
                               {"wander_distance", CS_USES_WANDER, 0},
                               {"jitter", CS_USES_WANDER, 0},
                               {"max_force", 0, 1},
                               {"mass", 0, 1},
                               {"dt", 0, 1}};
enum {
  FIELDS = sizeof fields / sizeof fields[0],
  INTEGRATOR = CROWDSTEER_BEHAVIOUR_COUNT
};

static int field_of(const char *name, size_t length) {
  for (int f = 0; f < FIELDS; f++)
    if (strlen(fields[f].name) == length && strncmp(fields[f].name, name, length) == 0)
      return f;
  return -1;
}

/* Who reads field f, by the library: bit b for behaviour b, INTEGRATOR. */
static unsigned long readers_of(int f) {
  unsigned long who = fields[f].integrator ? 1ul << INTEGRATOR : 0ul;
  for (int b = 0; b < CROWDSTEER_BEHAVIOUR_COUNT; b++)
    if (cs_behaviours[b].params & fields[f].uses) who |= 1ul << b;
  return who;
}

static int behaviour_of(const char *word) {
  for (int b = 0; b < CROWDSTEER_BEHAVIOUR_COUNT; b++)
    if (strcmp(word, crowdsteer_behaviour_name((crowdsteer_behaviour)b)) == 0) return b;
  if (strcmp(word, "integrator") == 0 || strcmp(word, "integrate") == 0)
    return INTEGRATOR;
  return -1;
}

/* A "used by" cell: behaviour names, "a .. b" for the behaviours from a to b
 * in enum order, "integrator" (or "integrate"), separated by commas,
 * semicolons and "and". Any other word is an error (*ok = 0): a reader
 * could not tell who it means. */
static unsigned long parse_users(const char *cell, const char *where, int *ok) {
  unsigned long who = 0;
  int previous = -1, range = 0;
  char word[64];
  const char *p = cell;
  while (*p) {
    while (*p && (isspace((unsigned char)*p) || *p == ',' || *p == ';'))
      p++;
    size_t n = 0;
    while (p[n] && !isspace((unsigned char)p[n]) && p[n] != ',' && p[n] != ';')
      n++;
    if (!n) break;
    if (n >= sizeof word) n = sizeof word - 1;
    memcpy(word, p, n);
    word[n] = '\0';
    p += n;
    if (strcmp(word, "..") == 0) {
      range = previous >= 0 && previous < INTEGRATOR;
      if (!range) *ok = 0, fprintf(stderr, "%s: \"..\" after no behaviour\n", where);
      continue;
    }
    if (strcmp(word, "and") == 0) continue;
    const int b = behaviour_of(word);
    if (b < 0) {
      *ok = 0;
      fprintf(stderr, "%s: \"%s\" names no behaviour\n", where, word);
      continue;
    }
    if (range)
      for (int r = previous; r <= b && r < INTEGRATOR; r++)
        who |= 1ul << r;
    who |= 1ul << b;
    previous = b;
    range = 0;
  }
  return who;
}

/* The cells of a table row "| a | b | c |", trimmed, into cells[] (at most
 * `most`); returns how many. */
static int split_row(char *line, char **cells, int most) {
  int n = 0;
  char *p = strchr(line, '|');
  while (p && n < most) {
    char *next = strchr(p + 1, '|');
    if (!next) break;
    *next = '\0';
    char *c = p + 1;
    while (isspace((unsigned char)*c))
      c++;
    char *e = c + strlen(c);
    while (e > c && isspace((unsigned char)e[-1]))
      *--e = '\0';
    cells[n++] = c;
    p = next;
  }
  return n;
}

static char *read_text(const char *path) {
  FILE *f = fopen(path, "rb");
  CHECK_MSG(f != NULL, "cannot open %s", path);
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  const long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = (char *)malloc((size_t)size + 1);
  if (!text || fread(text, 1, (size_t)size, f) != (size_t)size) abort();
  text[size] = '\0';
  fclose(f);
  return text;
}

/* Each backticked name in `cell` that is a parameter field: bit f set. */
static unsigned long fields_in(const char *cell) {
  unsigned long found = 0;
  for (const char *p = strchr(cell, '`'); p; p = strchr(p + 1, '`')) {
    const char *end = strchr(p + 1, '`');
    if (!end) break;
    const int f = field_of(p + 1, (size_t)(end - p - 1));
    if (f >= 0) found |= 1ul << f;
    p = end;
  }
  return found;
}

/* What one document's tables say; which tables it must have. */
typedef struct tables_seen {
  int per_field, per_behaviour;
} tables_seen;

static unsigned input_bits(const char *cell, const char *where, int *ok) {
  static const struct {
    const char *name;
    unsigned bit;
  } inputs[] = {{"target velocity", CROWDSTEER_INPUT_TARGET_VELOCITY},
                {"target", CROWDSTEER_INPUT_TARGET},
                {"wander state", CROWDSTEER_INPUT_WANDER},
                {"neighbours", CROWDSTEER_INPUT_NEIGHBOURS},
                {"fields", CROWDSTEER_INPUT_FIELD},
                {"path follow", CROWDSTEER_INPUT_PATH},
                {"bounds", CROWDSTEER_INPUT_BOUNDS}};
  unsigned bits = 0;
  char copy[256];
  snprintf(copy, sizeof copy, "%s", cell);
  for (char *item = strtok(copy, ","); item; item = strtok(NULL, ",")) {
    while (isspace((unsigned char)*item))
      item++;
    unsigned bit = 0;
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0] && !bit; i++)
      if (strcmp(item, inputs[i].name) == 0) bit = inputs[i].bit;
    if (!bit) *ok = 0, fprintf(stderr, "%s: input \"%s\" unknown\n", where, item);
    bits |= bit;
  }
  return bits;
}

static void check_document(const char *name, int want_per_behaviour) {
  char path[1024];
  snprintf(path, sizeof path, "%s/docs/%s", CROWDSTEER_SOURCE_DIR, name);
  char *text = read_text(path);
  if (!text) return;
  tables_seen seen = {0, 0};
  int used_by = -1, per_behaviour = 0, line_number = 0;
  unsigned long fields_listed = 0, behaviours_listed = 0;
  for (char *line = text, *next; line && *line; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = '\0';
    line_number++;
    char *cells[8];
    if (line[0] != '|') {
      used_by = -1, per_behaviour = 0;
      continue;
    }
    const int n = split_row(line, cells, 8);
    if (n == 0 || strncmp(cells[0], "---", 3) == 0) continue;
    char where[1100];
    snprintf(where, sizeof where, "docs/%s, table row \"%s\"", name, cells[0]);
    if (used_by < 0 && !per_behaviour) { /* a header row */
      for (int c = 1; c < n; c++)
        if (strcmp(cells[c], "used by") == 0) used_by = c;
      per_behaviour = n == 3 && strcmp(cells[0], "behaviour") == 0 &&
                      strcmp(cells[1], "inputs") == 0 &&
                      strcmp(cells[2], "parameters") == 0;
      seen.per_field += used_by >= 0;
      seen.per_behaviour += per_behaviour;
      if (used_by < 0 && !per_behaviour) used_by = -2; /* another table: skip it */
      continue;
    }
    int ok = 1;
    if (used_by > 0 && used_by < n) {
      const unsigned long listed = fields_in(cells[0]);
      if (!listed) continue; /* a row of no parameter field (the weights) */
      const unsigned long who = parse_users(cells[used_by], where, &ok);
      for (int f = 0; f < FIELDS; f++) {
        if (!((listed >> f) & 1ul)) continue;
        CHECK_MSG(!((fields_listed >> f) & 1ul), "%s: %s listed twice", where,
                  fields[f].name);
        fields_listed |= 1ul << f;
        CHECK_MSG(who == readers_of(f),
                  "%s: says %s is read by 0x%lx, the library's table by 0x%lx (bit %d: "
                  "the integrator)",
                  where, fields[f].name, who, readers_of(f), INTEGRATOR);
      }
    } else if (per_behaviour && n == 3) {
      const int b = behaviour_of(cells[0]);
      CHECK_MSG(b >= 0 && b < INTEGRATOR, "%s: not a behaviour", where);
      if (b < 0 || b >= INTEGRATOR) continue;
      CHECK_MSG(!((behaviours_listed >> b) & 1ul), "%s: listed twice", where);
      behaviours_listed |= 1ul << b;
      const unsigned inputs = input_bits(cells[1], where, &ok);
      CHECK_MSG(inputs == crowdsteer_behaviour_inputs((crowdsteer_behaviour)b),
                "%s: inputs 0x%x, crowdsteer_behaviour_inputs 0x%x", where, inputs,
                crowdsteer_behaviour_inputs((crowdsteer_behaviour)b));
      unsigned long want = 0;
      for (int f = 0; f < FIELDS; f++)
        if (cs_behaviours[b].params & fields[f].uses) want |= 1ul << f;
      CHECK_MSG(fields_in(cells[2]) == want, "%s: parameters 0x%lx, the library's 0x%lx",
                where, fields_in(cells[2]), want);
    }
    CHECK_MSG(ok, "%s (line %d): unreadable", where, line_number);
  }
  CHECK_MSG(seen.per_field == 1, "docs/%s: %d tables with a \"used by\" column", name,
            seen.per_field);
  CHECK_MSG(fields_listed == (1ul << FIELDS) - 1ul,
            "docs/%s: the parameter table lists fields 0x%lx, not all of them", name,
            fields_listed);
  if (want_per_behaviour) {
    CHECK_MSG(seen.per_behaviour == 1, "docs/%s: %d per-behaviour tables", name,
              seen.per_behaviour);
    unsigned long named = 0; /* every behaviour with a name */
    for (int b = 0; b < CROWDSTEER_BEHAVIOUR_COUNT; b++)
      if (strcmp(crowdsteer_behaviour_name((crowdsteer_behaviour)b), "unknown") != 0)
        named |= 1ul << b;
    CHECK_MSG(behaviours_listed == named, "docs/%s: the per-behaviour table lists 0x%lx",
              name, behaviours_listed);
  }
  free(text);
}

/* The parser itself tells what a table means, and refuses what it cannot
 * read: otherwise a broken parser would pass any document. */
static void check_parser(void) {
  const unsigned long seek_to_evade = (1ul << (CROWDSTEER_EVADE + 1)) - 1ul;
  int ok = 1;
  CHECK(parse_users("seek .. evade, separation; integrator", "self-test", &ok) ==
        (seek_to_evade | 1ul << CROWDSTEER_SEPARATION | 1ul << INTEGRATOR));
  CHECK(ok);
  CHECK(parse_users("cohesion and alignment", "self-test", &ok) ==
        (1ul << CROWDSTEER_COHESION | 1ul << CROWDSTEER_ALIGNMENT));
  CHECK(ok);
  (void)parse_users("all but wander", "self-test (an error is expected)", &ok);
  CHECK(!ok);
  CHECK(fields_in("`wander_radius`, `wander_distance`, `jitter` (default 0)") ==
        (1ul << 8 | 1ul << 9 | 1ul << 10));
  CHECK(readers_of(0) ==
        (seek_to_evade | 1ul << CROWDSTEER_SEPARATION | 1ul << CROWDSTEER_COHESION |
         1ul << CROWDSTEER_FOLLOW_FIELD | 1ul << CROWDSTEER_FOLLOW_PATH |
         1ul << CROWDSTEER_CONTAIN | 1ul << INTEGRATOR));
}

int main(void) {
  check_parser();
  check_document("behaviours.md", 1);
  check_document("guarantees.md", 0);
  return check_report("test_docs_tables");
}
