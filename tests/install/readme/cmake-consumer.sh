cmake -S myapp -B myapp/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$PREFIX"
cmake --build myapp/build
myapp/build/myapp
