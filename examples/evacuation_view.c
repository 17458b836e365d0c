/* crowdsteer-evacuation --view: the evacuation live in an SDL window, the
 * plan drawn as in --picture. Wheel zooms at the pointer, a drag pans,
 * space pauses, Esc or closing the window ends the run. */
#include <SDL.h>

#include <stdio.h>

#include "evacuation.h"

typedef struct view_state {
  SDL_Window *window;
  SDL_Renderer *renderer;
  SDL_Texture *texture;
  evac_canvas canvas;
  int paused, quit, dragging;
} view_state;

static void zoom_at(evac_canvas *c, int px, int py, double factor) {
  /* Keep the world point under the pointer where it is. */
  double wx = c->x0 + px / c->scale, wy = c->y0 + (c->img.height - 1 - py) / c->scale;
  c->scale *= factor;
  c->x0 = wx - px / c->scale;
  c->y0 = wy - (c->img.height - 1 - py) / c->scale;
}

static void poll(view_state *v) {
  SDL_Event e;
  while (SDL_PollEvent(&e)) {
    if (e.type == SDL_QUIT)
      v->quit = 1;
    else if (e.type == SDL_KEYDOWN && e.key.keysym.sym == SDLK_ESCAPE)
      v->quit = 1;
    else if (e.type == SDL_KEYDOWN && e.key.keysym.sym == SDLK_SPACE)
      v->paused = !v->paused;
    else if (e.type == SDL_MOUSEWHEEL) {
      int x, y;
      SDL_GetMouseState(&x, &y);
      zoom_at(&v->canvas, x, y, e.wheel.y > 0 ? 1.25 : 0.8);
    } else if (e.type == SDL_MOUSEBUTTONDOWN)
      v->dragging = 1;
    else if (e.type == SDL_MOUSEBUTTONUP)
      v->dragging = 0;
    else if (e.type == SDL_MOUSEMOTION && v->dragging) {
      v->canvas.x0 -= e.motion.xrel / v->canvas.scale;
      v->canvas.y0 += e.motion.yrel / v->canvas.scale;
    }
  }
}

int evac_view(evacuation *ev) {
  view_state v = {.canvas = evac_fit(ev, 900)};
  evac_canvas *c = &v.canvas;
  int rc = 1;
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    fprintf(stderr, "crowdsteer-evacuation: SDL: %s\n", SDL_GetError());
    return 1;
  }
  v.window = SDL_CreateWindow("crowdsteer evacuation", SDL_WINDOWPOS_CENTERED,
                              SDL_WINDOWPOS_CENTERED, c->img.width, c->img.height, 0);
  v.renderer = v.window ? SDL_CreateRenderer(v.window, -1, 0) : NULL;
  v.texture = v.renderer ? SDL_CreateTexture(v.renderer, SDL_PIXELFORMAT_RGB24,
                                             SDL_TEXTUREACCESS_STREAMING, c->img.width,
                                             c->img.height)
                         : NULL;
  if (!v.texture || pic_image_init(&c->img, c->img.width, c->img.height)) {
    fprintf(stderr, "crowdsteer-evacuation: SDL: %s\n", SDL_GetError());
    goto done;
  }
  size_t frames = 0;
  while (!v.quit && (!ev->opts.frames || frames < ev->opts.frames)) {
    poll(&v);
    if (!v.paused && ev->agents.count > 0 && ev->step < ev->opts.steps) {
      if (evac_step(ev)) goto done;
      if (ev->step % ev->opts.report_every == 0 || ev->agents.count == 0)
        evac_print_progress(ev);
    }
    if (evac_draw(ev, c)) goto done;
    SDL_UpdateTexture(v.texture, NULL, c->img.rgb, 3 * c->img.width);
    SDL_RenderCopy(v.renderer, v.texture, NULL, NULL);
    SDL_RenderPresent(v.renderer);
    frames++;
  }
  rc = 0;
done:
  pic_image_free(&c->img);
  if (v.texture) SDL_DestroyTexture(v.texture);
  if (v.renderer) SDL_DestroyRenderer(v.renderer);
  if (v.window) SDL_DestroyWindow(v.window);
  SDL_Quit();
  return rc;
}
