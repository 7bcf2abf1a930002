# Sourced by serve.sh and test.sh (from the project root, after .venv exists): an install is
# remembered by the SHA-256 of the pyproject.toml it came from, so serve.sh reinstalls only when
# that file changed.
STAMP=.venv/.installed-pyproject
pyproject_hash() {
  .venv/bin/python -c 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())' \
    pyproject.toml
}
