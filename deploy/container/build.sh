#!/usr/bin/env bash
# Build the medhelm-local image with no container registry (make image).
#
#   1. base: Debian bookworm's essential packages with python3 (no apt, no compiler), from Debian
#      packages (mmdebstrap) into a tarball,
#      imported into buildah as localhost/medhelm-local-base:bookworm (made only when missing);
#   2. the image: `buildah bud --isolation chroot` of deploy/container/Containerfile over a
#      context holding the wheelhouse (make wheelhouse);
#   3. an OCI archive to carry into the secure network: .cache/image/medhelm-local-VERSION.oci.tar.
#
# Everything lands in .cache/image (buildah's storage too). Needs root, buildah and mmdebstrap
# (apt-get install buildah mmdebstrap) and Debian's package mirror for step 1.
set -euo pipefail
cd "$(dirname "$0")/../.."
OUT=${MEDHELM_IMAGE_DIR:-$PWD/.cache/image}
SUITE=${DEBIAN_SUITE:-bookworm}
STORE=(--root "$OUT/storage" --runroot "$OUT/run" --storage-driver vfs)
VERSION=$(python3 -c 'import tomllib; print(tomllib.load(open("pyproject.toml", "rb"))["project"]["version"])')
BASE=localhost/medhelm-local-base:$SUITE
IMAGE=localhost/medhelm-local:$VERSION
mkdir -p "$OUT"
step() { printf '%s %s\n' "$(date +%T)" "$*" >&2; }

[ -f .cache/wheelhouse/requirements.lock ] || { echo "no wheelhouse: run make wheelhouse first" >&2; exit 2; }

if ! buildah "${STORE[@]}" inspect --type image "$BASE" >/dev/null 2>&1; then
  if [ ! -f "$OUT/base-$SUITE.tar" ]; then
    step "base: mmdebstrap $SUITE (essential packages, python3, libstdc++6, ca-certificates; no apt)"
    # Documentation and manuals left out; copyright files kept (licences).
    mmdebstrap --variant=essential --format=tar --include=python3,python3-venv,ca-certificates,passwd,libstdc++6 \
      --dpkgopt='path-exclude=/usr/share/doc/*' --dpkgopt='path-include=/usr/share/doc/*/copyright' \
      --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/info/*' \
      --dpkgopt='path-exclude=/usr/share/locale/*' \
      --customize-hook='rm -rf "$1"/var/lib/apt/lists/* "$1"/var/cache/apt/*' \
      "$SUITE" "$OUT/base-$SUITE.tar.partial"
    mv "$OUT/base-$SUITE.tar.partial" "$OUT/base-$SUITE.tar"
  fi
  step "base: import $OUT/base-$SUITE.tar as $BASE"
  ctr=$(buildah "${STORE[@]}" from scratch)
  buildah "${STORE[@]}" add "$ctr" "$OUT/base-$SUITE.tar" /
  buildah "${STORE[@]}" config --cmd /bin/sh "$ctr"
  buildah "${STORE[@]}" commit --quiet --rm "$ctr" "$BASE" >/dev/null
fi

# The same wheelhouse and Containerfile make the same image: skip the build when nothing changed.
KEY=$(cat .cache/wheelhouse/requirements.lock deploy/container/Containerfile | sha256sum | cut -c1-64)
ARCHIVE="$OUT/medhelm-local-$VERSION.oci.tar"
BUILT=$(buildah "${STORE[@]}" inspect --type image --format '{{index .OCIv1.Config.Labels "medhelm-local.build-key"}}' \
  "$IMAGE" 2>/dev/null || true)
if [ "$BUILT" = "$KEY" ] && [ -f "$ARCHIVE" ]; then
  step "up to date: $IMAGE and $ARCHIVE (same wheelhouse and Containerfile)"
  exit 0
fi

step "image: buildah bud $IMAGE"
rm -rf "$OUT/context" && mkdir -p "$OUT/context"
cp -al .cache/wheelhouse "$OUT/context/wheelhouse" 2>/dev/null || cp -a .cache/wheelhouse "$OUT/context/wheelhouse"
buildah "${STORE[@]}" bud --quiet --isolation chroot --build-arg "BASE_IMAGE=$BASE" --label "medhelm-local.build-key=$KEY" \
  -f deploy/container/Containerfile -t "$IMAGE" "$OUT/context" >/dev/null
rm -rf "$OUT/context"
buildah "${STORE[@]}" rmi --prune >/dev/null 2>&1 || true  # the image this one replaces

step "archive: $ARCHIVE"
rm -f "$ARCHIVE"
buildah "${STORE[@]}" push --quiet "$IMAGE" "oci-archive:$ARCHIVE:medhelm-local:$VERSION"
step "done: $IMAGE ($(buildah "${STORE[@]}" images --format '{{.Size}}' "$IMAGE")), archive $(du -h "$ARCHIVE" | cut -f1)"
