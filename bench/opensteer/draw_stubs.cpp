// What OpenSteer's SimpleVehicle needs of its demo and OpenGL drawing,
// headless: annotation off, drawing calls that draw nothing.
#include "OpenSteer/Annotation.h"

namespace OpenSteer {
bool enableAnnotation = false;
bool drawPhaseActive = false;
void drawLine(const Vec3 &, const Vec3 &, const Color &) {}
void deferredDrawLine(const Vec3 &, const Vec3 &, const Color &) {}
} // namespace OpenSteer
