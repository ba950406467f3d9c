"""TC101-TC116: REPO, NAME, AUTOFILL, VALIDATE (platform/backend) and VERSIONS: the repository
layout, the backend fields, the versions Triton loads."""
