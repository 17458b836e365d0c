cmake -S . -B build/lib-shared -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=ON \
      -DCROWDSTEER_BUILD_TESTS=OFF -DCROWDSTEER_BUILD_DEMO=OFF -DCROWDSTEER_BUILD_BENCHMARKS=OFF
cmake --build build/lib-shared --parallel 2
cmake --install build/lib-shared --prefix "$PREFIX"
