#!/usr/bin/env bash
# Cuts a release on the current branch (see docs/releasing.md):
#   scripts/release.sh VERSION [NEXT]        e.g. scripts/release.sh 0.1.0   (NEXT defaults to 0.1.1-SNAPSHOT)
# 1. sets VERSION in every POM, the build timestamp to now, dates the CHANGELOG section and the README's coordinates;
# 2. runs `mvn verify -Pbench` (QUARRY_RELEASE_SKIP_VERIFY=1 skips it, for a rehearsal);
# 3. commits "Release VERSION" and tags it vVERSION (annotated);
# 4. sets NEXT in every POM and commits "Start NEXT".
# It pushes nothing and publishes nothing: it prints the commands for that.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

die() {
    echo "release: $*" >&2
    exit 1
}

[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: scripts/release.sh VERSION [NEXT]   (e.g. 0.1.0 0.1.1-SNAPSHOT)"
version=$1
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || die "VERSION must be MAJOR.MINOR.PATCH, not '$version'"
if [ $# -eq 2 ]; then
    next=$2
else
    IFS=. read -r major minor patch <<<"$version"
    next="$major.$minor.$((patch + 1))-SNAPSHOT"
fi
[[ $next =~ ^[0-9]+\.[0-9]+\.[0-9]+-SNAPSHOT$ ]] || die "NEXT must be MAJOR.MINOR.PATCH-SNAPSHOT, not '$next'"

[ -z "$(git status --porcelain)" ] || die "the working tree has uncommitted changes; commit or stash them first"
! git rev-parse -q --verify "refs/tags/v$version" >/dev/null || die "tag v$version exists already"

# The version of the build: the one in quarry-bom/pom.xml, the top of the POM hierarchy.
current=$(sed -n 's|^    <version>\(.*\)</version>$|\1|p' quarry-bom/pom.xml | head -n1)
[ -n "$current" ] || die "cannot read the current version from quarry-bom/pom.xml"
[ "$current" != "$version" ] || die "the POMs are at $version already"

# Every POM names the version exactly once, as its own or its parent's <version>: replace that line only.
set_version() {
    local from=$1 to=$2 pom
    for pom in $(git ls-files '*pom.xml'); do
        sed -i "s|<version>$from</version>|<version>$to</version>|" "$pom"
        if grep -q "<version>$from</version>" "$pom"; then
            die "$pom still names $from"
        fi
    done
}

echo "release: $current -> $version, then $next"
set_version "$current" "$version"

# Reproducible builds: the archives of this release carry the release's time.
now=$(date -u +%Y-%m-%dT%H:%M:%SZ)
sed -i "s|<project.build.outputTimestamp>[^<]*</project.build.outputTimestamp>|<project.build.outputTimestamp>$now</project.build.outputTimestamp>|" pom.xml

# CHANGELOG.md: date the version's section, or turn [Unreleased] into it.
today=${now%%T*}
if grep -q "^## \[$version\]$" CHANGELOG.md; then
    sed -i "s|^## \[$version\]$|## [$version] - $today|" CHANGELOG.md
elif grep -q "^## \[Unreleased\]$" CHANGELOG.md; then
    sed -i "s|^## \[Unreleased\]$|## [Unreleased]\n\n## [$version] - $today|" CHANGELOG.md
else
    die "CHANGELOG.md has neither a [$version] nor an [Unreleased] section"
fi

# README.md: the coordinates people copy name the release.
perl -0pi -e "s|(<artifactId>quarry-bom</artifactId>\s*<version>)[^<]*(</version>)|\${1}$version\${2}|; s|dev\.quarry:quarry-bom:[^\"]*\"|dev.quarry:quarry-bom:$version\"|g" README.md
grep -q "<version>$version</version>" README.md || die "README.md has no quarry-bom coordinates to update"

if [ "${QUARRY_RELEASE_SKIP_VERIFY:-0}" != 1 ]; then
    # shellcheck source=../.ci/jdk.sh
    source .ci/jdk.sh
    mvn -B -q verify -Pbench || die "mvn verify failed; nothing is committed: 'git checkout -- .' undoes the edits"
fi

git commit -q -am "Release $version"
git tag -a "v$version" -m "Quarry $version"

set_version "$version" "$next"
git commit -q -am "Start $next"

cat <<EOF
release: tagged v$version; the branch is at $next.
  Publish:  git push origin HEAD "v$version"
  Artifacts (see docs/releasing.md): git checkout "v$version" && mvn -B deploy -DaltDeploymentRepository=...
EOF
