export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
cc -std=c11 -O2 myapp/main.c $(pkg-config --cflags --libs crowdsteer) -Wl,-rpath,"$PREFIX/lib" \
   -o myapp/app
myapp/app
