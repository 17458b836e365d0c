cmake -S examples/chase -B build/chase -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PREFIX"
cmake --build build/chase
build/chase/chase
