#!/usr/bin/env bash
# Installs what astrosweep needs on Debian 12 / Ubuntu 22.04+ and does nothing when it is present.
# Usage: tools/install-deps.sh [--with-clang] [--with-python]
#   --with-clang   clang with its OpenMP, sanitizer runtimes and libFuzzer, for the sanitizer and
#                  fuzz builds (docs/testing.md; tools/quickstart.sh --tests asks for it)
#   --with-python  astropy/h5py/matplotlib for the reference, benchmark and plotting scripts (the
#                  build and the tests do not need them)
set -euo pipefail

with_clang=0
with_python=0
for arg in "$@"; do
  case $arg in
    --with-clang) with_clang=1 ;;
    --with-python) with_python=1 ;;
    *) echo "install-deps: unknown option $arg (see the comment at the top)" >&2; exit 2 ;;
  esac
done

packages=(build-essential cmake pkg-config openmpi-bin libopenmpi-dev libhdf5-openmpi-dev libfftw3-dev
          hdf5-tools libboost-program-options-dev libgtest-dev libcfitsio-dev wcslib-dev zlib1g-dev)
((with_clang)) && packages+=(clang libomp-dev)

sudo_cmd=()
[[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for p in "${packages[@]}"; do installed "$p" || missing+=("$p"); done
# libFuzzer and the sanitizer runtimes are a package of their own on Debian 12 and Ubuntu 24.04
# (libclang-rt-dev), and part of libclang-common-*-dev (which clang pulls in) on Ubuntu 22.04.
if ((with_clang)) && ! installed libclang-rt-dev; then
  apt-cache show libclang-rt-dev >/dev/null 2>&1 || "${sudo_cmd[@]}" apt-get update -qq
  apt-cache show libclang-rt-dev >/dev/null 2>&1 && missing+=(libclang-rt-dev)
fi

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: system packages present"
fi

if ((with_python)); then
  python3 -c 'import astropy, h5py, matplotlib, numpy, scipy' 2>/dev/null ||
    python3 -m pip install -q astropy h5py matplotlib numpy scipy
fi
