// What a block's attach function leaves in the GPU platform (platforms/attach/<block>.h).
// See docs/architecture.md ("Adding a block").
#pragma once

namespace vgpu::platforms::attach {

/// The modules, signals and figures one block's attach function made, owned by the platform
/// for the whole run; each block's own parts derive from it in the block's attach file.
class attachment {
public:
    virtual ~attachment() = default;
};

} // namespace vgpu::platforms::attach
