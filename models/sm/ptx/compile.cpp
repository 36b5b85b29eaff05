// CUDA compile driver (see compile.h and docs/cuda.md).
#include "models/sm/ptx/compile.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef VGPU_PTX_SHIM_DIR
#error "VGPU_PTX_SHIM_DIR must name models/sm/ptx/include"
#endif

extern char** environ;

namespace vgpu::ptx {

namespace {

/// Closes a file descriptor when it goes out of scope.
struct fd_guard {
    int fd = -1;
    ~fd_guard()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

/// Reads what is ready on fd into out; false at end of file.
bool drain(int fd, std::string& out)
{
    char buf[65536];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
        out.append(buf, static_cast<std::size_t>(n));
        return true;
    }
    return n < 0 && (errno == EINTR || errno == EAGAIN);
}

/// "where: error: " for messages about the compile as a whole.
std::string prefix(const compile_request& req)
{
    const std::string w = req.where.file.empty() ? req.source : req.where.str();
    return w + ": error: ";
}

/// The kernel and source named at the end of each compiler message.
std::string context(const compile_request& req)
{
    return " (compiling '" + req.source + "' for kernel '" + req.kernel + "'" +
           (req.where.file.empty() ? "" : " of " + req.where.file) + ")";
}

/// Turns the compiler's "file:line:col: error: text" lines into located errors.
void collect_errors(const compile_request& req, const std::string& err,
                    std::vector<std::string>& errors)
{
    std::size_t pos = 0;
    while (pos < err.size()) {
        std::size_t end = err.find('\n', pos);
        if (end == std::string::npos)
            end = err.size();
        const std::string line = err.substr(pos, end - pos);
        pos = end + 1;
        for (const char* kind : {": error: ", ": fatal error: "}) {
            const std::size_t k = line.find(kind);
            if (k == std::string::npos)
                continue;
            errors.push_back(line.substr(0, k) + ": error: " + line.substr(k + std::strlen(kind)) +
                             context(req));
            break;
        }
    }
}

/// A time limit as written by a person: "120", "0.3".
std::string seconds(double s)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", s);
    return buf;
}

} // namespace

std::string default_shim_dir()
{
    return VGPU_PTX_SHIM_DIR;
}

std::vector<std::string> compile_command(const compile_request& req)
{
    const std::string shim = req.shim_dir.empty() ? default_shim_dir() : req.shim_dir;
    std::vector<std::string> argv = {req.compiler, "-x", "cuda", "--cuda-device-only", "-nocudainc",
                                     "-nocudalib", "--cuda-gpu-arch=sm_70", "-O3", "-S",
                                     // PTX 6.0 features (the .sync warp builtins) whatever CUDA
                                     // installation clang finds or does not find
                                     "-Xclang", "-target-feature", "-Xclang", "+ptx60",
                                     "-Wno-unknown-cuda-version",
                                     // .loc line tables (the code is the same without them)
                                     "-gline-tables-only", "-fno-color-diagnostics", "-include",
                                     shim + "/vgpu_cuda_runtime.h", "-I", shim};
    for (const auto& [name, value] : req.defines)
        argv.push_back("-D" + name + "=" + value);
    for (const std::string& dir : req.includes) {
        argv.push_back("-I");
        argv.push_back(dir);
    }
    argv.push_back("-o");
    argv.push_back("-");
    // A name starting with '-' would be read as an option (clang-14 does not take "--").
    argv.push_back(req.source.rfind('-', 0) == 0 ? "./" + req.source : req.source);
    return argv;
}

program_output run_program(const std::vector<std::string>& argv, double timeout_s)
{
    program_output res;
    int out_pipe[2], err_pipe[2];
    if (::pipe2(out_pipe, O_CLOEXEC) != 0) {
        res.spawn_error = std::strerror(errno);
        return res;
    }
    fd_guard out_r{out_pipe[0]}, out_w{out_pipe[1]};
    if (::pipe2(err_pipe, O_CLOEXEC) != 0) {
        res.spawn_error = std::strerror(errno);
        return res;
    }
    fd_guard err_r{err_pipe[0]}, err_w{err_pipe[1]};

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_w.fd, 1);
    posix_spawn_file_actions_adddup2(&fa, err_w.fd, 2);
    std::vector<char*> args;
    for (const std::string& a : argv)
        args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    const int rc = ::posix_spawnp(&pid, args[0], &fa, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        res.not_found = rc == ENOENT;
        res.spawn_error = std::strerror(rc);
        return res;
    }
    ::close(out_w.fd);
    out_w.fd = -1;
    ::close(err_w.fd);
    err_w.fd = -1;

    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(static_cast<long long>(timeout_s * 1000));
    bool out_open = true, err_open = true;
    while (out_open || err_open) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - std::chrono::steady_clock::now())
                              .count();
        if (left <= 0) {
            res.timed_out = true;
            ::kill(pid, SIGKILL);
            break;
        }
        pollfd fds[2] = {{out_open ? out_r.fd : -1, POLLIN, 0},
                         {err_open ? err_r.fd : -1, POLLIN, 0}};
        const int n = ::poll(fds, 2, static_cast<int>(std::min<long long>(left, 1000)));
        if (n < 0 && errno != EINTR)
            break;
        if (out_open && (fds[0].revents & (POLLIN | POLLHUP | POLLERR)))
            out_open = drain(out_r.fd, res.out);
        if (err_open && (fds[1].revents & (POLLIN | POLLHUP | POLLERR)))
            err_open = drain(err_r.fd, res.err);
    }
    int wstatus = 0;
    while (::waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
    res.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
    return res;
}

compile_result compile_cuda(const compile_request& req)
{
    compile_result res;
    res.argv = compile_command(req);
    if (::access(req.source.c_str(), R_OK) != 0) {
        res.errors.push_back(prefix(req) + "cannot read CUDA source '" + req.source +
                             "': " + std::strerror(errno) + context(req));
        return res;
    }
    program_output run = run_program(res.argv, req.timeout_s);
    res.diagnostics = run.err;
    if (run.not_found) {
        res.errors.push_back(prefix(req) + "the CUDA compiler '" + req.compiler +
                             "' is not installed (install the Debian package clang-14)" +
                             context(req));
        return res;
    }
    if (!run.spawn_error.empty()) {
        res.errors.push_back(prefix(req) + "cannot run '" + req.compiler + "': " + run.spawn_error +
                             context(req));
        return res;
    }
    if (run.timed_out) {
        res.errors.push_back(prefix(req) + "the CUDA compiler took longer than " +
                             seconds(req.timeout_s) + " s and was stopped" + context(req));
        return res;
    }
    if (run.status != 0) {
        collect_errors(req, run.err, res.errors);
        if (res.errors.empty())
            res.errors.push_back(prefix(req) + "the CUDA compiler failed (exit status " +
                                 std::to_string(run.status) + ")" + context(req) + ":\n" + run.err);
        return res;
    }
    if (run.out.find(".version") == std::string::npos) {
        res.errors.push_back(prefix(req) + "the CUDA compiler produced no PTX" + context(req));
        return res;
    }
    res.ptx = std::move(run.out);
    return res;
}

} // namespace vgpu::ptx
