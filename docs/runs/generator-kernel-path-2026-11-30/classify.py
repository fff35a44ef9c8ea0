"""Groups `perf report --sort dso,sym` lines (self time) of the generator by what they do,
and prints each group's share of all samples and of the kernel's, with its top symbols."""
import re
import sys
from collections import defaultdict

# First match wins: the pattern is searched in the kernel symbol's name.
GROUPS = [
    ("syscall boundary (entry, exit, fd lookup, wrappers)",
     r"^(entry_|do_syscall|syscall_|exit_to_user|__x64_sys_(sendto|recvfrom|read|write|writev)$|"
     r"__sys_(sendto|recvfrom)|fdget|__fget|fput|sockfd_lookup|security_socket|import_ubuf|"
     r"__import_iovec|sock_(sendmsg|recvmsg)$|inet_(sendmsg|recvmsg)$|__check_object_size|"
     r"rw_verify_area|srso_|retbleed|__x86_return_thunk|__x86_indirect|clear_bhb|"
     r"amd_clear_divider|x86_pmu|native_irq_return)"),
    ("epoll", r"^(ep_|do_epoll|__x64_sys_epoll|epoll_)"),
    ("loopback receive softirq (the peer's receive)",
     r"^(net_rx_action|__netif_receive|netif_receive|process_backlog|__napi|napi_|ip_rcv|"
     r"ip_local_deliver|ip_protocol_deliver|ip_sublist|ip_list_rcv|tcp_v4_rcv|tcp_v4_do_rcv|"
     r"tcp_rcv|tcp_data_queue|tcp_queue_rcv|tcp_ack|tcp_clean_rtx|tcp_event_data_recv|"
     r"sock_def_readable|__wake_up|ep_poll_callback|tcp_validate_incoming|tcp_urg|"
     r"tcp_check_space|__inet_lookup|inet_ehashfn|tcp_add_backlog|do_softirq|__do_softirq|"
     r"handle_softirqs|__local_bh_enable|tcp_v4_fill_cb|tcp_filter|sk_filter|tcp_mstamp|"
     r"skb_release|kfree_skb|__kfree_skb|skb_free_head|tcp_rack|tcp_newly_delivered|"
     r"__sk_mem|sk_forced_mem|tcp_try_coalesce|skb_try_coalesce|tcp_grow_window|"
     r"enqueue_to_backlog|netif_rx|tcp_rate_|tcp_schedule_loss|tcp_update_pacing|"
     r"__tcp_ack_snd_check|tcp_send_delayed_ack|tcp_delack|__xfrm|__netif_rx)"),
    ("TCP/IP send path",
     r"^(tcp_sendmsg|tcp_push|__tcp_push|tcp_write_xmit|__tcp_transmit_skb|tcp_transmit_skb|"
     r"ip_queue_xmit|__ip_queue_xmit|ip_output|ip_finish_output|__ip_finish_output|"
     r"ip_local_out|__ip_local_out|dev_queue_xmit|__dev_queue_xmit|dev_hard_start_xmit|"
     r"loopback_xmit|tcp_stream_alloc_skb|sk_stream_alloc|tcp_skb_entail|tcp_options_write|"
     r"tcp_established_options|tcp_v4_send_check|__tcp_v4_send_check|skb_copy_to_page|"
     r"tcp_event_new_data_sent|tcp_rearm_rto|sk_reset_timer|tcp_chrono|tcp_tso|"
     r"tcp_current_mss|tcp_send_mss|validate_xmit|netif_skb_features|skb_network_protocol|"
     r"tcp_small_queue|tcp_pacing|ip_send_check|nf_hook|ipv4_conntrack|ipv4_mtu|"
     r"tcp_wfree|sock_wfree|skb_clone|__skb_clone|__copy_skb_header|eth_type_trans|"
     r"skb_page_frag_refill|tcp_rtt|tcp_sendmsg_locked|bpf_skops|neigh_|ip_skb_dst)"),
    ("receive copy (recvmsg to user space)",
     r"^(tcp_recvmsg|tcp_cleanup_rbuf|skb_copy_datagram|__skb_datagram_iter|_copy_to_iter|"
     r"copy_user|rep_movs|_copy_from_iter|copyin|copyout|simple_copy_to_iter|"
     r"tcp_rcv_space_adjust|sock_rfree|__tcp_cleanup_rbuf|tcp_recv_timestamp|lock_sock|"
     r"release_sock|__release_sock|_raw_spin|__lock_sock)"),
    ("memory (skb and slab allocation, accounting)",
     r"^(kmem_cache|kmalloc|__kmalloc|kfree|__alloc_skb|alloc_skb|__build_skb|slab_|"
     r"___slab|__slab|memcg|mod_memcg|__mod|refill_obj|obj_cgroup|page_counter|__memcg|"
     r"get_page_from_freelist|__alloc_pages|free_unref|__free_pages|mem_cgroup|"
     r"__put_page|put_page|skb_attempt_defer|__rcu|rcu_)"),
    ("scheduling, timers, interrupts",
     r"^(schedule|__schedule|pick_next|update_|dequeue|enqueue|try_to_wake|ttwu|"
     r"select_task|psi_|finish_task|hrtimer|__hrtimer|tick_|ktime|read_tsc|native_sched|"
     r"switch_|__switch|prepare_task|asm_sysvec|sysvec_|irq|__irq|timerqueue|"
     r"__update|set_next|put_prev|cpuacct|cgroup_rstat|account_|check_preempt|resched|"
     r"sched_|__cgroup|task_tick|wake_up|default_wake)"),
]

def main(path):
    kernel = defaultdict(float)
    other = defaultdict(float)
    tops = defaultdict(list)
    total = 0.0
    for line in open(path):
        m = re.match(r"\s*([\d.]+)%\s+(\S+)\s+\[(.)\]\s+(\S+)", line)
        if not m:
            continue
        pct, dso, mode, sym = float(m.group(1)), m.group(2), m.group(3), m.group(4)
        total += pct
        if mode != "k":
            other[dso] += pct
            continue
        for name, pat in GROUPS:
            if re.search(pat, sym):
                kernel[name] += pct
                tops[name].append((pct, sym))
                break
        else:
            kernel["rest of the kernel"] += pct
            tops["rest of the kernel"].append((pct, sym))
    ksum = sum(kernel.values())
    print(f"samples: {total:.1f}% listed; kernel {ksum:.1f}%, user space {sum(other.values()):.1f}%")
    for dso, pct in sorted(other.items(), key=lambda x: -x[1]):
        print(f"  user space {dso}: {pct:.1f}%")
    for name, pct in sorted(kernel.items(), key=lambda x: -x[1]):
        top = ", ".join(f"{s} {p:.1f}" for p, s in sorted(tops[name], reverse=True)[:5])
        print(f"  {name}: {pct:.1f}% of all ({100 * pct / ksum:.0f}% of the kernel's); top: {top}")

if __name__ == "__main__":
    main(sys.argv[1])
