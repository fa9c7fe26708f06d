#!/usr/bin/env bash
# Installs what astrosweep needs on Debian 12 / Ubuntu 22.04+ and does nothing when it is present.
# Usage: tools/install-deps.sh [--with-python]   (--with-python adds astropy/h5py/matplotlib for
# the reference, benchmark and plotting scripts; the build and the tests do not need them).
set -euo pipefail

packages=(build-essential cmake pkg-config openmpi-bin libopenmpi-dev libhdf5-openmpi-dev
          hdf5-tools libboost-program-options-dev libgtest-dev libcfitsio-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "install-deps: installing ${missing[*]}"
  sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "install-deps: system packages present"
fi

if [[ ${1:-} == --with-python ]]; then
  python3 -c 'import astropy, h5py, matplotlib, numpy, scipy' 2>/dev/null ||
    python3 -m pip install -q astropy h5py matplotlib numpy scipy
fi
